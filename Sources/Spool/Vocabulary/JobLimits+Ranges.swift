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

    /// Refuses a lease duration outside ``minLeaseDuration`` ..< ``maxLeaseDuration``.
    static func checkLeaseDuration(_ duration: TimeInterval) throws {
        guard duration >= minLeaseDuration, duration < maxLeaseDuration else {
            throw SpoolError.invalidArgument(
                "the lease duration must be at least \(minLeaseDuration) s and under "
                    + "\(Int64(maxLeaseDuration)) s, not \(duration)")
        }
    }
}
