/// How far a running job has come, as its handler reports it (``JobContext/reportProgress(_:)``):
/// a fraction and, optionally, counts ("3 of 10 photos").
///
/// Progress lives in memory only: it is never written to the log, so it costs no sync, and it is gone
/// after a crash or a restart (the next attempt reports again). What a next attempt must find again
/// belongs in a checkpoint. A job's last progress stays visible (``JobQueue/progress(of:)``) until the
/// job finishes or is removed, across retries and snoozes of the same process.
public struct JobProgress: Sendable, Equatable, CustomStringConvertible {
    /// The fraction done, 0 to 1.
    public var fraction: Double
    /// Units done, when the handler counts them.
    public var completed: Int?
    /// Units in all, when the handler counts them.
    public var total: Int?

    /// Progress as a fraction; a value outside 0…1 is clamped, one that is not a number is 0.
    public init(fraction: Double) {
        self.fraction = fraction.isNaN ? 0 : min(1, max(0, fraction))
    }

    /// Progress as counts: `completed` of `total` units (the fraction is their ratio, clamped to 0…1;
    /// 0 for a total of 0 or less).
    public init(completed: Int, of total: Int) {
        self.init(fraction: total > 0 ? Double(completed) / Double(total) : 0)
        self.completed = completed
        self.total = total
    }

    /// "3 of 10 (30%)" or "45%".
    public var description: String {
        let percent = "\(Int((fraction * 100).rounded()))%"
        guard let completed, let total else { return percent }
        return "\(completed) of \(total) (\(percent))"
    }
}
