# Back of a kernel library's thread-local block: a 64 KB guard right after the kernel's static
# __shared__ variables. The page alignment makes the guard start where their end rounded up to 128
# bytes lies: the front pad (written per build, runtime/cpu/shared_window.h) is sized so that this
# end is a page boundary. The runtime makes the guard inaccessible (emulator.cpp,
# prepare_static_shared): an access past the window faults, as on a GPU. The symbol is local.
	.section .tbss,"awT",@nobits
	.balign 4096
	.type kaudit_static_shared_back, @object
	.size kaudit_static_shared_back, 65536
kaudit_static_shared_back:
	.zero 65536
	.section .note.GNU-stack,"",@progbits
