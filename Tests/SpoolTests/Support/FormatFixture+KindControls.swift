import Foundation

@testable import Spool

extension FormatFixture {
    /// Kind controls (since format-2-tags, body version 7): a rate-limited kind with starts counted
    /// before and after a snapshot (which holds `pause_kind`, `set_rate_limit` and `rate_window`), a kind
    /// paused, resumed and paused again, and a limit set and removed, after the snapshot.
    static func generateKindControls(queue: JobQueue, clock: ManualClock) throws {
        func step() { clock.advance(by: 1) }
        step()
        _ = try queue.enqueue(
            contentsOf: (1...3).map {
                NewJob(kind: "sms", payload: Data("+1 555 01\($0)".utf8), id: JobID("sms-\($0)"))
            })
        _ = try queue.enqueue(NewJob(kind: "newsletter", payload: Data("december".utf8), id: "newsletter-1"))
        _ = try queue.setRateLimit(RateLimit(starts: 2, per: 86_400), kind: "sms")
        _ = try queue.pause(kind: "newsletter")
        step()
        guard let first = try queue.claim(kind: "sms") else { throw FixtureError("no sms job to claim") }
        step()
        _ = try queue.complete(first)
        step()
        _ = try queue.compact()
        step()
        guard try queue.claim(kind: "newsletter") == nil else { throw FixtureError("a paused kind was claimed") }
        _ = try queue.claim(kind: "sms", leaseDuration: 86_400 * 30)
        guard try queue.claim(kind: "sms") == nil else { throw FixtureError("a full window let a claim through") }
        _ = try queue.resume(kind: "newsletter")
        _ = try queue.pause(kind: "newsletter")
        _ = try queue.setRateLimit(RateLimit(starts: 1, per: 0.5), kind: "push")
        _ = try queue.setRateLimit(nil, kind: "push")
        step()
    }
}

extension FixtureState {
    /// The kind controls of `state` (absent from fixtures written before them: nothing controlled).
    struct FixtureKindControls: Codable, Equatable {
        /// Paused kind → paused at (ms).
        var paused: [String: Int64]
        /// Limited kind → [starts, interval ms].
        var limits: [String: [Int64]]
        /// Limited kind → [window start ms, count].
        var windows: [String: [Int64]]

        init?(_ controls: KindControls) {
            guard !controls.isEmpty else { return nil }
            paused = controls.paused
            limits = controls.limits.mapValues { [$0.starts, $0.intervalMillis] }
            windows = controls.windows.mapValues { [$0.start, $0.count] }
        }
    }
}
