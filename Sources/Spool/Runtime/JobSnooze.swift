/// What a handler throws to run its job again later without failing (swift-jobs' `JobSleep`,
/// River's snooze): the job goes back to enqueued, due at the time, and the attempt is given back,
/// kept or counted as ``attempt`` says. ``Job/lastStopReason`` becomes ``StopReason/snoozed``.
///
/// <!-- sample: skip -->
/// ```swift
/// guard server.isReady else { throw JobSnooze(for: 600) }  // ten minutes, no retry spent
/// ```
///
/// ``JobContext/snooze(until:attempt:)`` and ``JobContext/snooze(for:attempt:)`` throw it.
/// From app code holding a lease, ``JobQueue/snooze(_:until:attempt:)-6a5pj`` does the same.
public struct JobSnooze: Error, Sendable, Equatable, CustomStringConvertible {
    /// When the job runs again: a date, or seconds after the runner's clock reads the snooze.
    public enum Wake: Sendable, Equatable {
        /// At this date.
        case at(Date)
        /// This many seconds after the attempt ends (0 or more).
        case after(TimeInterval)
    }

    /// When the job runs again.
    public var wake: Wake
    /// What happens to the attempt.
    public var attempt: SnoozeAttempt

    /// Runs the job again at `date`.
    public init(until date: Date, attempt: SnoozeAttempt = .giveBack) {
        wake = .at(date)
        self.attempt = attempt
    }

    /// Runs the job again `seconds` after the attempt ends, by the queue's clock.
    public init(for seconds: TimeInterval, attempt: SnoozeAttempt = .giveBack) {
        wake = .after(seconds)
        self.attempt = attempt
    }

    /// "snooze until …" or "snooze for N s".
    public var description: String {
        switch wake {
        case .at(let date): return "snooze until \(date)"
        case .after(let seconds): return "snooze for \(seconds) s"
        }
    }

    /// The outcome the runner records, the clock reading `now`: a snooze, or a retryable failure
    /// naming the snooze when its time is not a date between the years 1 and 9999.
    func ending(now: Date) -> AttemptEnd {
        let date: Date
        switch wake {
        case .at(let at): date = at
        case .after(let seconds): date = seconds.isFinite ? now.addingTimeInterval(max(0, seconds)) : .distantFuture
        }
        guard let until = try? QueueEngine.milliseconds(date, of: "snooze") else {
            return .failed(
                error: "invalid snooze (\(description)): not a date between the years 1 and 9999", terminal: false)
        }
        return .snoozed(until: until, attempt: attempt)
    }
}

extension JobContext {
    /// Ends the attempt without failing: the job runs again at `date`, the attempt given back, kept
    /// or counted as `attempt` says. Throws ``JobSnooze``, always: let it leave the handler.
    ///
    /// <!-- sample: skip -->
    /// ```swift
    /// if let retryAfter = response.retryAfter { try context.snooze(until: retryAfter) }
    /// ```
    public func snooze(until date: Date, attempt: SnoozeAttempt = .giveBack) throws -> Never {
        throw JobSnooze(until: date, attempt: attempt)
    }

    /// Ends the attempt without failing: the job runs again `seconds` later. See ``snooze(until:attempt:)``.
    public func snooze(for seconds: TimeInterval, attempt: SnoozeAttempt = .giveBack) throws -> Never {
        throw JobSnooze(for: seconds, attempt: attempt)
    }
}
