/// The order in which the owner applies the producers' pending records (FORMAT.md, *Producer inbox
/// files*, "Order"): every inbox file's, merged into one sequence by their ``InboxStamp``s, so that a
/// producer call that returned before another began — in any process — is applied first.
///
/// The rule, and why it holds:
/// - Each file is taken as a queue: its records in file order (one producer's calls keep their order,
///   whatever their stamps say), the next record of every file compared by its key, the least first.
/// - Keys: records without a stamp (builds before it) first, by file name, as those builds ordered them;
///   then records of boots other than the owner's, boot by boot (a boot's place: the earliest wall-clock
///   `at` among its pending records), each by its monotonic reading; then the owner's boot's, by monotonic
///   reading. Equal keys go by file name: equal readings are calls that overlapped, which either order fits.
/// - A record of the owner's boot is taken only when its reading is at most ``Cutoff/now`` (read before
///   the inbox was listed); a file stops at its first record not taken. A call that returned before a
///   taken record's call began returned before `now`: its record was complete and synced in a file
///   already listed, so the owner read it (under the file's lock, or without it from a file whose
///   producer was writing: its complete records do not change), and its lower reading puts it first.
///
/// Pure: no clock, no disk. ``InboxIngestor`` feeds it what it read.
enum InboxMerge {
    /// What the owner's boot may take.
    struct Cutoff: Equatable, Sendable {
        /// The owner's boot (``SpoolClock/bootIdentifier()``).
        var boot: String
        /// The owner's monotonic reading before it listed the inbox: the latest reading taken.
        var now: UInt64

        /// Whether a record of the owner's boot read at `monotonic` is taken.
        func takes(_ monotonic: UInt64) -> Bool { monotonic <= now }
    }

    /// One taken record: the index of its file and its index in that file's records.
    struct Step: Equatable, Sendable {
        var file: Int
        var record: Int
    }

    /// The records to apply now, in order: `stamps[f]` are file `f`'s records' stamps in file order
    /// (`nil` for a record without one), `names[f]` its name. Each file's steps are a prefix of its records.
    static func order(names: [String], stamps: [[InboxStamp?]], cutoff: Cutoff) -> [Step] {
        precondition(names.count == stamps.count)
        let bootRanks = ranks(ofBootsIn: stamps, other: cutoff.boot)
        // Each file's next record's key, or nil when the file is done (taken, or waiting for a later ingestion).
        func key(_ file: Int, _ record: Int) -> Key? {
            guard record < stamps[file].count else { return nil }
            guard let stamp = stamps[file][record] else { return Key(group: 0, reading: 0, name: names[file]) }
            if stamp.bootID != cutoff.boot {
                return Key(group: 1 + bootRanks[stamp.bootID]!, reading: stamp.monotonic, name: names[file])
            }
            guard cutoff.takes(stamp.monotonic) else { return nil }
            return Key(group: 1 + bootRanks.count, reading: stamp.monotonic, name: names[file])
        }
        var next = [Int](repeating: 0, count: names.count)
        var heads = names.indices.map { key($0, 0) }
        var steps: [Step] = []
        steps.reserveCapacity(stamps.reduce(0) { $0 + $1.count })
        while true {
            var least: Int?
            for file in heads.indices {
                guard let head = heads[file] else { continue }
                if let current = least, !(head < heads[current]!) { continue }
                least = file
            }
            guard let file = least else { return steps }
            steps.append(Step(file: file, record: next[file]))
            next[file] += 1
            heads[file] = key(file, next[file])
        }
    }

    /// The place of each boot but `other` among the stamps: by the earliest wall-clock time of its
    /// records, then by its identifier.
    private static func ranks(ofBootsIn stamps: [[InboxStamp?]], other: String) -> [String: Int] {
        var earliest: [String: Int64] = [:]
        for case let stamp? in stamps.joined() where stamp.bootID != other {
            earliest[stamp.bootID] = min(earliest[stamp.bootID] ?? .max, stamp.at)
        }
        let ordered = earliest.sorted { ($0.value, $0.key) < ($1.value, $1.key) }
        return Dictionary(uniqueKeysWithValues: ordered.enumerated().map { ($1.key, $0) })
    }

    /// A record's place: its group (unstamped, each other boot, the owner's boot), its reading, its file's name.
    private struct Key: Comparable {
        var group: Int
        var reading: UInt64
        var name: String

        static func < (lhs: Key, rhs: Key) -> Bool {
            (lhs.group, lhs.reading, lhs.name) < (rhs.group, rhs.reading, rhs.name)
        }
    }
}
