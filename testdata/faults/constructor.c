/*
 * constructor.c: a planted library whose constructor appends a line to
 * MARKER, so that a test can tell whether the loader ever let it run
 * (dlopen runs constructors before any symbol is looked up). It defines
 * none of the library's symbols.
 *
 *   gcc -shared -fPIC -O1 -DMARKER='"/abs/marker"' -o planted.so testdata/faults/constructor.c
 */
#include <fcntl.h>
#include <unistd.h>

#ifndef MARKER
#error "MARKER must name the file the constructor writes"
#endif

__attribute__((constructor)) static void planted(void) {
	int fd = open(MARKER, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	if (fd >= 0) {
		(void)!write(fd, "planted constructor ran\n", 24);
		close(fd);
	}
}
