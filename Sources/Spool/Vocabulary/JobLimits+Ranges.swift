extension JobLimits {
    /// The priorities a job may have: they are stored in 32 bits.
    public static let priorities = Int(Int32.min)...Int(Int32.max)
    /// Delays an enqueue accepts are under this many seconds (about 3 170 years): the longest
    /// delay a retry policy gives.
    public static let maxDelay: TimeInterval = RetryPolicy.longestDelay
    /// The shortest lease, in seconds: one millisecond, the unit in which a lease's expiry is stored.
    public static let minLeaseDuration: TimeInterval = 0.001
    /// Leases are shorter than this many seconds (about 31 years).
    public static let maxLeaseDuration: TimeInterval = 1e9

    /// Refuses a text that is empty or longer than `maxBytes` UTF-8 bytes; `name` names it in the message.
    static func checkText(_ text: String, name: String, maxBytes: Int) throws {
        let count = text.utf8.count
        guard count > 0 else { throw SpoolError.invalidArgument("the \(name) is empty") }
        guard count <= maxBytes else {
            throw SpoolError.invalidArgument("the \(name) is \(count) bytes, over the limit of \(maxBytes)")
        }
    }

    /// Refuses a tag that is empty or longer than ``maxTagBytes``.
    static func checkTag(_ tag: String) throws {
        try checkText(tag, name: "tag", maxBytes: maxTagBytes)
    }

    /// Refuses more than ``maxTags`` tags, or a tag ``checkTag(_:)`` refuses (the first in their order).
    /// - Returns: The tags in their on-disk order: by their UTF-8 bytes (FORMAT.md, `tags`).
    static func checkTags(_ tags: Set<String>) throws -> [String] {
        guard tags.count <= maxTags else {
            throw SpoolError.invalidArgument("\(tags.count) tags are over the limit of \(maxTags)")
        }
        let ordered = tags.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
        for tag in ordered { try checkTag(tag) }
        return ordered
    }

    /// Refuses a result over ``maxResultBytes``.
    static func checkResult(_ result: [UInt8]) throws {
        guard result.count <= maxResultBytes else {
            throw SpoolError.invalidArgument(
                "the result of \(result.count) bytes is over the limit of \(maxResultBytes)")
        }
    }

    /// Refuses a lease duration outside ``minLeaseDuration`` ..< ``maxLeaseDuration``.
    static func checkLeaseDuration(_ duration: TimeInterval) throws {
        guard duration >= minLeaseDuration, duration < maxLeaseDuration else {
            throw SpoolError.invalidArgument(
                "the lease duration must be at least \(minLeaseDuration) s and under "
                    + "\(Int64(maxLeaseDuration)) s, not \(duration)")
        }
    }
}
