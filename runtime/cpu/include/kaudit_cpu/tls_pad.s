# Poisoned padding around a kernel library's static __shared__ variables.
# The CPU build links this file before and after the kernel's translation unit, so the linker
# places one pad at each end of the library's thread-local block (.tbss input sections keep the
# command line's order). The runtime fills the whole block with the poison pattern before each
# CUDA block, so a read past a static __shared__ array (up to the pad's size) sees poison
# instead of other, history-dependent memory; see runtime/cpu/compile.cpp.
# The symbol is local, so the two copies never clash.
	.section .tbss,"awT",@nobits
	.balign 64
	.type kaudit_static_shared_pad, @object
	.size kaudit_static_shared_pad, 16384
kaudit_static_shared_pad:
	.zero 16384
	.section .note.GNU-stack,"",@progbits
