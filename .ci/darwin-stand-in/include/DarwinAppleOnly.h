/*
 * The Apple-only C declarations that Spool's Darwin branches use, copied from the Apple headers
 * (each with the header it comes from), for the Darwin type-check on Linux: see
 * docs/DARWIN-TYPECHECK.md. Only types and values matter here; nothing is ever linked or run.
 *
 * Types that both systems define (off_t, size_t, pid_t) come from glibc's own headers, so they
 * are the very types Glibc's Swift module exports. On Apple platforms they are the same widths
 * (off_t: __darwin_off_t = __int64_t, size_t: unsigned long), so they import alike: Int64, Int.
 *
 * Rule: a Darwin-only call added to Spool comes, in the same commit, with its declaration here
 * (or in ../Darwin.swift when it has no C form), copied from the header named in its comment.
 */
#ifndef SPOOL_DARWIN_APPLE_ONLY_H
#define SPOOL_DARWIN_APPLE_ONLY_H

#include <sys/types.h>
#include <stddef.h>

/* ---- <sys/fcntl.h>: apple-oss-distributions/xnu bsd/sys/fcntl.h ---- */

/* fcntl commands. The importer turns each integer macro into `var NAME: Int32 { get }`. */
#define F_PREALLOCATE   42              /* Preallocate storage */
#define F_FULLFSYNC     51              /* fsync + ask the drive to flush to the media */
#define F_BARRIERFSYNC          85      /* fsync + issue barrier to drive */

/* allocate flags (F_PREALLOCATE): Int32 in Swift, so fst_flags needs UInt32(...) */
#define F_ALLOCATECONTIG  0x00000002    /* allocate contigious space */
#define F_ALLOCATEALL     0x00000004    /* allocate all requested space or no space at all */
#define F_ALLOCATEPERSIST 0x00000008    /* do not free space upon close(2) */

/* Position Modes (fst_posmode) for F_PREALLOCATE: Int32, as fst_posmode is */
#define F_PEOFPOSMODE 3                 /* Make it past all of the SEEK pos modes so that */
                                        /* we can keep them in sync should we desire */
#define F_VOLPOSMODE    4               /* specify volume starting postion */

/* fstore_t type used by F_PREALLOCATE command. Swift: struct fstore_t with
 * fst_flags: UInt32, fst_posmode: Int32, fst_offset/fst_length/fst_bytesalloc: off_t (Int64),
 * a zero init() and the memberwise init(fst_flags:fst_posmode:fst_offset:fst_length:fst_bytesalloc:). */
typedef struct fstore {
	unsigned int fst_flags; /* IN: flags word */
	int     fst_posmode;    /* IN: indicates use of offset field */
	off_t   fst_offset;     /* IN: start of the region */
	off_t   fst_length;     /* IN: size of the region */
	off_t   fst_bytesalloc; /* OUT: number of bytes allocated */
} fstore_t;

/* ---- <sys/sysctl.h>: apple-oss-distributions/xnu bsd/sys/sysctl.h (the !KERNEL prototypes) ---- */

/* Swift: func sysctlbyname(_: UnsafePointer<CChar>!, _: UnsafeMutableRawPointer!,
 *                          _: UnsafeMutablePointer<Int>!, _: UnsafeMutableRawPointer!, _: Int) -> Int32 */
int     sysctlbyname(const char *, void *, size_t *, void *, size_t);

/* ---- <stdlib.h>: Libc include/stdlib.h, as shipped in the MacOSX SDKs ----
 *   void arc4random_buf(void * __buf, size_t __nbytes) __OSX_AVAILABLE_STARTING(__MAC_10_7, __IPHONE_4_3);
 * glibc 2.36 declares the same function (`void arc4random_buf (void *__buf, size_t __size)`), and
 * Glibc's Swift module exports it as the same func(UnsafeMutableRawPointer!, Int); it is
 * declared again here so that the check does not depend on the glibc version. */
void arc4random_buf(void * __buf, size_t __nbytes);

#endif
