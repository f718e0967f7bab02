import Foundation

@testable import Spool

/// A job's own retry schedule in the model: a table, or an exponential schedule without jitter (so that the
/// model knows each deadline).
enum ModelRetry: Equatable {
    case table([Int64], maxAttempts: Int)
    case exponential(base: Int64, factor: Double, maximum: Int64, maxAttempts: Int)

    var maxAttempts: Int {
        switch self {
        case .table(_, let maxAttempts), .exponential(_, _, _, let maxAttempts): return maxAttempts
        }
    }

    /// The delay in ms after the failed attempt `attempt` (from 1), as the engine computes it.
    func delay(afterFailedAttempt attempt: Int) -> Int64 {
        switch self {
        case .table(let delays, _): return delays[min(attempt, delays.count) - 1]
        case .exponential(let base, let factor, let maximum, _):
            var delay = Double(base)
            for _ in 1..<max(attempt, 1) { delay *= factor }
            return min(maximum, Int64(delay.rounded()))
        }
    }

    /// The policy an enqueue gives for it.
    var policy: RetryPolicy {
        switch self {
        case .table(let delays, let maxAttempts):
            return .table(delays.map { Double($0) / 1000 }, maxAttempts: maxAttempts)
        case .exponential(let base, let factor, let maximum, let maxAttempts):
            return .exponential(
                base: Double(base) / 1000, factor: factor, maximum: Double(maximum) / 1000, maxAttempts: maxAttempts)
        }
    }

    /// The policy a job holding it shows (its budget is the job's).
    func policy(maxAttempts: Int) -> RetryPolicy {
        RetryPolicy(schedule: policy.schedule, maxAttempts: maxAttempts)
    }
}

extension QueueModel {
    /// The retry schedule of job `id` (picked by its number, as its tags are): a table, an exponential one or none.
    static func retry(of id: String) -> ModelRetry? {
        let number = Int(id.drop { !$0.isNumber }.prefix { $0.isNumber }) ?? 0
        switch number % 5 {
        case 1: return .table([2_000, 500], maxAttempts: 2)
        case 3: return .exponential(base: 250, factor: 2, maximum: 1_000, maxAttempts: 4)
        default: return nil
        }
    }

    /// The policy an enqueue of job `id` carries (``retry(of:)``).
    static func retryPolicy(of id: String) -> RetryPolicy? { retry(of: id)?.policy }
}
