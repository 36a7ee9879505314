# Back of a kernel library's thread-local block: a 16 KB poison pad after the kernel's static
# __shared__ variables, then a 64 KB guard. The page alignment makes the pad start on a page
# (the gap of up to 4 KB after the variables is poisoned with the pad) and the block end on one,
# so the guard is 16 whole pages. See tls_pad_front.s.
	.section .tbss,"awT",@nobits
	.balign 4096
	.type kaudit_static_shared_back, @object
	.size kaudit_static_shared_back, 16384 + 65536
kaudit_static_shared_back:
	.zero 16384
	.zero 65536
	.section .note.GNU-stack,"",@progbits
