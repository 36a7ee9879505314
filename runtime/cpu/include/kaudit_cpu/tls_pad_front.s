# Front of a kernel library's thread-local block, which holds its static __shared__ variables.
# The CPU build links this file first and tls_pad_back.s last around the kernel's translation
# unit (.tbss input sections keep the command line's order; see runtime/cpu/compile.cpp), so the
# block is: guard, poison pad, the kernel's variables, poison pad, guard.
# - The guard (64 KB) is made inaccessible by the runtime (emulator.cpp, poison_static_shared):
#   an access that far out of bounds faults at once, as the memory checker's guard pages do for
#   tensors, instead of reaching heap memory whose contents depend on what the worker ran before.
# - The poison pad (16 KB) is filled with the poison pattern before each CUDA block: a read a
#   little past an array sees poison, and a write there is harmless to the next block.
# The 4096-byte alignment makes the block start on a page (glibc honours the TLS alignment), so
# the guard is whole pages. The symbols are local: the two files never clash.
	.section .tbss,"awT",@nobits
	.balign 4096
	.type kaudit_static_shared_front, @object
	.size kaudit_static_shared_front, 65536 + 16384
kaudit_static_shared_front:
	.zero 65536
	.zero 16384
	.section .note.GNU-stack,"",@progbits
