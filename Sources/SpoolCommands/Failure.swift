import Spool

/// Why a command stopped early, and the exit status that says so.
package enum CommandFailure: Error {
    /// The command line is wrong: exit 2 with the message and a usage hint.
    case usage(String)
    /// Something went wrong doing the work: exit 1 with the message.
    case operational(String)
    /// A claim found no job ready: exit 3 with the message.
    case nothingReady(String)
}

/// The process exit statuses of `spool`.
package enum ExitStatus {
    /// The command did what it was asked.
    package static let success: Int32 = 0
    /// An operational error: the queue could not be opened, a job was not found, a lease was lost.
    package static let failure: Int32 = 1
    /// A usage error: an unknown command or option, a missing or malformed argument.
    package static let usage: Int32 = 2
    /// `claim` found no job ready.
    package static let nothingReady: Int32 = 3
}
