@testable import Spool

extension QueueEngine {
    /// Rolls the log over now, whatever the size of the active file, leaving `skipping` file numbers free as
    /// a compaction does: the roll-over a compaction makes (``QueueEngine/rollOver(skipping:)``), under the
    /// engine's lock, without the snapshot.
    func lockedRollOver(skipping: UInt64 = 0) throws {
        try withOpenState { _ = try rollOver(skipping: skipping) }
    }
}
