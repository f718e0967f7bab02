/// Where an engine is in its life: the one state every call checks (under the engine's lock).
///
/// A failed write, sync, roll-over, compaction or a lost ownership *poisons* the engine: the state in
/// memory may hold changes that never reached the disk, so every later call — reads included — throws
/// the failure until the queue is reopened. The first failure is the one kept.
enum EngineStatus {
    /// Open is migrating, reclaiming and ingesting: no background compaction starts.
    case opening
    case open
    /// Poisoned: every call throws this (``SpoolError/Code/needsReopen`` or ``SpoolError/Code/ownershipLost``).
    case poisoned(SpoolError)
    case closed

    /// The failure every call throws, if the engine is poisoned.
    var failure: SpoolError? {
        if case .poisoned(let failure) = self { return failure }
        return nil
    }

    var isClosed: Bool {
        if case .closed = self { return true }
        return false
    }

    /// Whether the engine is open and unpoisoned (a background compaction may start).
    var isOpen: Bool {
        if case .open = self { return true }
        return false
    }

    /// Poisons the engine with `failure`, unless it is poisoned already (the first failure is kept) or closed.
    mutating func poison(with failure: SpoolError) {
        switch self {
        case .opening, .open: self = .poisoned(failure)
        case .poisoned, .closed: break
        }
    }

    /// The end of open: throws the failure that poisoned the engine meanwhile.
    mutating func finishOpening() throws {
        if let failure { throw failure }
        if case .opening = self { self = .open }
    }
}
