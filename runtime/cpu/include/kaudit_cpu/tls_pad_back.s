# Back of a kernel library's thread-local block: a 16 KB poison pad right after the kernel's
# static __shared__ variables, then a 64 KB guard. The runtime protects the whole pages of the
# guard (the block's end need not fall on a page). See tls_pad_front.s.
	.section .tbss,"awT",@nobits
	.balign 64
	.type kaudit_static_shared_back, @object
	.size kaudit_static_shared_back, 16384 + 65536
kaudit_static_shared_back:
	.zero 16384
	.zero 65536
	.section .note.GNU-stack,"",@progbits
