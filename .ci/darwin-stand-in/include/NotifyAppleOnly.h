/*
 * <notify.h> (Libnotify; Apple's header as carried in darlinghq/darling src/libnotify/notify.h),
 * behind the stand-in Swift module `notify` (Swift on Apple platforms: `import notify`, tested
 * with `#if canImport(notify)` as swift-foundation does). notify_register_dispatch, whose
 * dispatch_queue_t and block types import differently without Objective-C, is in ../notify.swift.
 */
#ifndef SPOOL_NOTIFY_APPLE_ONLY_H
#define SPOOL_NOTIFY_APPLE_ONLY_H

#include <stdint.h>

/* Status codes returned by the API (Int32 in Swift; the functions return UInt32). */
#define NOTIFY_STATUS_OK 0
#define NOTIFY_STATUS_INVALID_NAME 1
#define NOTIFY_STATUS_INVALID_TOKEN 2
#define NOTIFY_STATUS_INVALID_PORT 3
#define NOTIFY_STATUS_INVALID_FILE 4
#define NOTIFY_STATUS_INVALID_SIGNAL 5
#define NOTIFY_STATUS_INVALID_REQUEST 6
#define NOTIFY_STATUS_NOT_AUTHORIZED 7
#define NOTIFY_STATUS_OPT_DISABLE 8
#define NOTIFY_STATUS_SERVER_NOT_FOUND 9
#define NOTIFY_STATUS_NULL_INPUT 10
#define NOTIFY_STATUS_FAILED 1000000

/* Flag bits used for registration. */
#define NOTIFY_REUSE 0x00000001

/* Token values are zero or positive integers. */
#define NOTIFY_TOKEN_INVALID -1

/* Swift: func notify_post(_ name: UnsafePointer<CChar>!) -> UInt32 */
uint32_t notify_post(const char *name);
/* Swift: func notify_register_check(_ name: UnsafePointer<CChar>!, _ out_token: UnsafeMutablePointer<Int32>!) -> UInt32 */
uint32_t notify_register_check(const char *name, int *out_token);
uint32_t notify_register_signal(const char *name, int sig, int *out_token);
uint32_t notify_register_file_descriptor(const char *name, int *notify_fd, int flags, int *out_token);
uint32_t notify_check(int token, int *check);
uint32_t notify_cancel(int token);
uint32_t notify_suspend(int token);
uint32_t notify_resume(int token);
uint32_t notify_set_state(int token, uint64_t state64);
uint32_t notify_get_state(int token, uint64_t *state64);
/* `bool` here is C's _Bool (the header includes <stdbool.h> through its other headers). */
_Bool notify_is_valid_token(int val);

#endif
