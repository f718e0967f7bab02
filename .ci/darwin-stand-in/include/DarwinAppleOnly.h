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
#include <stdint.h>

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

/* ---- Mach task information, for SpoolBench's resident-memory probe (Darwin's module map has
 * these in Darwin.Mach, which `import Darwin` brings). ---- */

/* apple-oss-distributions/xnu osfmk/mach/i386/vm_types.h (arm/vm_types.h is alike):
 * natural_t: UInt32, integer_t: Int32, mach_vm_size_t: UInt64 in Swift. */
typedef unsigned int            natural_t;      /* __darwin_natural_t, <i386/_types.h> */
typedef int                     integer_t;
typedef uint64_t                mach_vm_size_t;

/* <mach/message.h> (the SDK's; xnu osfmk/mach/message.h) */
typedef natural_t mach_msg_type_number_t;

/* <mach/port.h>: mach_port_t is __darwin_mach_port_t, a __darwin_mach_port_name_t, a
 * __darwin_natural_t (<sys/_types.h>); <mach/mach_types.h>: task_name_t is a mach_port_t. */
typedef natural_t               mach_port_t;
typedef mach_port_t             task_name_t;

/* <mach/machine/kern_return.h>, <mach/kern_return.h> */
typedef int                     kern_return_t;
#define KERN_SUCCESS                    0

/* <mach/time_value.h> */
struct time_value {
	integer_t seconds;
	integer_t microseconds;
};
typedef struct time_value time_value_t;

/* <mach/policy.h> */
typedef int                     policy_t;

/* xnu osfmk/mach/task_info.h */
typedef natural_t       task_flavor_t;
typedef integer_t       *task_info_t;           /* varying array of int */

#pragma pack(push, 4)
#define MACH_TASK_BASIC_INFO     20         /* always 64-bit basic info */
struct mach_task_basic_info {
	mach_vm_size_t  virtual_size;       /* virtual memory size (bytes) */
	mach_vm_size_t  resident_size;      /* resident memory size (bytes) */
	mach_vm_size_t  resident_size_max;  /* maximum resident memory size (bytes) */
	time_value_t    user_time;          /* total user run time for
	                                     *  terminated threads */
	time_value_t    system_time;        /* total system run time for
	                                     *  terminated threads */
	policy_t        policy;             /* default policy for new threads */
	integer_t       suspend_count;      /* suspend count for task */
};
#pragma pack(pop)
typedef struct mach_task_basic_info       mach_task_basic_info_data_t;
typedef struct mach_task_basic_info       *mach_task_basic_info_t;

/* <mach/task.h>, generated by MIG from xnu osfmk/mach/task.defs:
 *   routine task_info(target_task : task_name_t; flavor : task_flavor_t;
 *                     out task_info_out : task_info_t, CountInOut);
 * Swift: func task_info(_: task_name_t, _: task_flavor_t, _: task_info_t!,
 *                       _: UnsafeMutablePointer<mach_msg_type_number_t>!) -> kern_return_t */
kern_return_t task_info(task_name_t target_task, task_flavor_t flavor, task_info_t task_info_out,
                        mach_msg_type_number_t *task_info_outCnt);

/* <mach/mach_init.h> (libsyscall): the calling task's port; mach_task_self() is a macro reading it.
 * Since the macOS 15.4 SDK it is declared `extern __swift_nonisolated_unsafe mach_port_t
 * mach_task_self_;`, <sys/cdefs.h> defining __swift_nonisolated_unsafe as below, so Swift 6 code
 * may read it (Swift: `nonisolated(unsafe) var mach_task_self_: mach_port_t`). With older SDKs
 * reading it is an error in Swift 6 mode: this stand-in follows the current SDKs. */
#define __swift_nonisolated_unsafe __attribute__((__swift_attr__("nonisolated(unsafe)")))
extern __swift_nonisolated_unsafe mach_port_t mach_task_self_;

#endif
