extension TransactionCodec {
    enum Opcode: UInt8 {
        case enqueue = 1, claim, renewLease, complete, fail, cancel, retry, reschedule, delete, reclaim
        case restore, snapshot, expire
        case migrationBegin = 20, migrateJob, migrationRemove, migrationCommit, migrationsApplied, abandon
        case enqueueWithOptions = 14, nextOccurrence, restoreWithOptions
    }

    /// Whether an operation with this opcode starts with the id of a job it looks up (a string),
    /// as the operations on one job do: replay reads that id ahead (see ``JobIndexWarmer``).
    static func startsWithJobID(_ rawOpcode: UInt8) -> Bool {
        guard let opcode = Opcode(rawValue: rawOpcode) else { return false }
        switch opcode {
        case .snapshot, .migrationBegin, .migrateJob, .migrationRemove, .migrationCommit, .migrationsApplied: return false
        default: return true
        }
    }
}
