import Foundation

@testable import Spool

/// The reference model of the kind controls, written from FORMAT.md's *Kind controls*: a paused kind is
/// not claimed; a limited kind's window opens at a start and holds at most `starts` starts for `interval` ms.
struct ModelKindControls: Equatable {
    struct Limit: Equatable {
        var starts: Int
        var interval: Int64
    }

    struct Window: Equatable {
        var start: Int64
        var count: Int
    }

    var paused: Set<String> = []
    var limits: [String: Limit] = [:]
    var windows: [String: Window] = [:]

    /// Whether a claim at `now` may take a job of `kind`.
    func isOpen(_ kind: String, at now: Int64) -> Bool {
        guard !paused.contains(kind) else { return false }
        guard let limit = limits[kind], let window = windows[kind] else { return true }
        return window.count < limit.starts || now >= window.start + limit.interval
    }

    mutating func countStart(of kind: String, at now: Int64) {
        guard let limit = limits[kind] else { return }
        if let window = windows[kind], now < window.start + limit.interval {
            windows[kind]!.count += 1
        } else {
            windows[kind] = Window(start: now, count: 1)
        }
    }

    mutating func setLimit(_ limit: Limit?, kind: String) {
        limits[kind] = limit
        if limit == nil { windows[kind] = nil }
    }

    /// Differences from the queue's controls; empty when they agree.
    func differences(from queue: JobQueue) -> [String] {
        let state = queue.engine.stateSnapshot.kindControls
        var problems: [String] = []
        if Set(state.paused.keys) != paused {
            problems.append("paused: queue \(state.paused.keys.sorted()), model \(paused.sorted())")
        }
        let limits = state.limits.mapValues { Limit(starts: Int($0.starts), interval: $0.intervalMillis) }
        if limits != self.limits { problems.append("rate limits: queue \(limits), model \(self.limits)") }
        let windows = state.windows.mapValues { Window(start: $0.start, count: Int($0.count)) }
        if windows != self.windows { problems.append("rate windows: queue \(windows), model \(self.windows)") }
        return problems
    }
}

/// A kind-control step of the crash fuzzer's workload.
enum KindControlOp: CustomStringConvertible, Sendable {
    case pause(String)
    case resume(String)
    /// `starts` nil: remove the limit.
    case setRateLimit(String, starts: Int?, intervalMillis: Int64)

    var description: String {
        switch self {
        case .pause(let kind): return "pause \(kind)"
        case .resume(let kind): return "resume \(kind)"
        case .setRateLimit(let kind, let starts?, let interval): return "rate limit \(kind) \(starts)/\(interval)ms"
        case .setRateLimit(let kind, nil, _): return "no rate limit \(kind)"
        }
    }

    /// One step in about twelve workload operations, or none.
    static func random(using generator: inout SeededGenerator) -> KindControlOp? {
        let roll = Int.random(in: 0..<48, using: &generator)
        let kind = roll % 2 == 0 ? "k" : "m"
        switch roll / 2 {
        case 0: return .pause(kind)
        case 1, 2: return .resume(kind)
        case 3: return .setRateLimit(kind, starts: 1 + roll % 3, intervalMillis: Int64(1 + roll % 3) * 1000)
        case 4: return .setRateLimit(kind, starts: nil, intervalMillis: 0)
        default: return nil
        }
    }

    /// Performs the step on `queue` and on the model, checking what the queue returns.
    func perform(on queue: JobQueue, model: inout QueueModel, now: Int64) throws {
        switch self {
        case .pause(let kind):
            let changed = !model.kindControls.paused.contains(kind)
            model.kindControls.paused.insert(kind)
            if try queue.pause(kind: kind) != changed { throw ModelDisagreement("\(self): changed \(!changed)") }
        case .resume(let kind):
            let changed = model.kindControls.paused.contains(kind)
            model.kindControls.paused.remove(kind)
            if try queue.resume(kind: kind) != changed { throw ModelDisagreement("\(self): changed \(!changed)") }
        case .setRateLimit(let kind, let starts, let interval):
            let limit = starts.map { ModelKindControls.Limit(starts: $0, interval: interval) }
            model.kindControls.setLimit(limit, kind: kind)
            _ = try queue.setRateLimit(
                starts.map { RateLimit(starts: $0, per: Double(interval) / 1000) }, kind: kind)
        }
    }
}

/// The queue answered otherwise than the model says (reported as a violation by the run).
struct ModelDisagreement: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
