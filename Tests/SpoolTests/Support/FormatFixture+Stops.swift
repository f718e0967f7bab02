import Foundation

@testable import Spool

extension FormatFixture {
    /// The stop operations (since format-2-stops, body version 6): attempts released and snoozed, a
    /// failure whose reason (timed out) follows it as `stop_reason`, then a snapshot (each job's
    /// reason a `stop_reason` after its restore), then more of them after the snapshot.
    static func generateStops(queue: JobQueue, clock: ManualClock) throws {
        func step() { clock.advance(by: 1) }
        func claim(_ kind: String) throws -> Lease {
            guard let lease = try queue.claim(kind: kind) else { throw FixtureError("nothing to claim of \(kind)") }
            return lease
        }
        step()
        _ = try queue.enqueue(NewJob(kind: "stops.release", payload: Data("upload".utf8), id: "stop-release"))
        _ = try queue.enqueue(NewJob(kind: "stops.snooze", payload: Data("poll".utf8), id: "stop-snooze"))
        _ = try queue.enqueue(NewJob(kind: "stops.timeout", payload: Data("slow".utf8), id: "stop-timeout"))
        _ = try queue.enqueue(NewJob(kind: "stops.keep", payload: Data("wait".utf8), id: "stop-keep"))
        step()
        try queue.release(try claim("stops.release"), reason: .systemTimeExpired)
        step()
        try queue.snooze(try claim("stops.snooze"), until: clock.now().addingTimeInterval(120))
        step()
        let slow = try claim("stops.timeout")
        _ = try queue.engine.durably {
            try $0.end(
                id: slow.job.id, token: slow.token, issued: true,
                ending: .failed(error: "timed out after 10 s", terminal: false, reason: .timedOut))
        }
        step()
        _ = try queue.compact()
        step()
        try queue.release(try claim("stops.release"), reason: .constraintsUnmet)
        step()
        try queue.snooze(try claim("stops.keep"), until: clock.now().addingTimeInterval(300), attempt: .keep)
        step()
        _ = try queue.enqueue(NewJob(kind: "stops.timeout", payload: Data("slower".utf8), id: "stop-timeout-2"))
        let slower = try claim("stops.timeout")
        _ = try queue.engine.durably {
            try $0.end(
                id: slower.job.id, token: slower.token, issued: true,
                ending: .failed(error: "timed out after 10 s", terminal: false, reason: .timedOut))
        }
        step()
    }
}
