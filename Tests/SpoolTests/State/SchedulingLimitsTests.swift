import Foundation
import SpoolTestSupport
import Testing

@testable import Spool

/// `schedulingHints()` never asks for more requests than the platform keeps pending (iOS: 1 refresh,
/// 10 processing), and `nextProcessingHint()` follows the job that could run first.
@Suite(.blocking) struct SchedulingLimitsTests {
    private func hint(_ seconds: Double, network: Bool = false, power: Bool = false, kind: String) -> SchedulingHint {
        SchedulingHint(
            earliestBeginDate: Date(timeIntervalSince1970: seconds), requiresNetworkConnectivity: network,
            requiresExternalPower: power, jobCount: 1, kinds: [kind])
    }

    @Test func theIOSLimitsAreOneRefreshAndTenProcessingRequests() throws {
        #expect(SchedulingLimits.iOS == SchedulingLimits(refreshRequests: 1, processingRequests: 10))
        // Fifteen processing hints and two refresh hints: cut to 1 refresh and 10 processing.
        var hints = (0..<15).map { hint(Double($0), network: true, kind: "p\($0)") }
        hints += [hint(100, kind: "r1"), hint(50, kind: "r2")]
        let cut = SchedulingLimits.iOS.apply(to: hints)
        #expect(cut.filter { $0.request == .refresh }.count == 1)
        #expect(cut.filter { $0.request == .processing }.count == 10)
        #expect(cut.map(\.jobCount).reduce(0, +) == 17, "every job is still covered by a request")
        #expect(cut.flatMap(\.kinds).count == 17)
        // The surplus merged into the latest allowed one: it begins at the earliest of those it gathers
        // and requires what all of them require (the refresh hint moved in requires nothing).
        let merged = try #require(cut.max { $0.jobCount < $1.jobCount })
        #expect(merged.earliestBeginDate == Date(timeIntervalSince1970: 9))
        #expect(merged.requiresNetworkConnectivity == false)
    }

    @Test func aQueuesHintsAreCutToTheLimitsGiven() throws {
        let temp = TemporaryDirectory("spool-hints")
        defer { temp.cleanup() }
        let clock = ManualClock()
        let queue = try JobQueue(directory: temp.queue, configuration: testConfiguration(clock: clock))
        let now = clock.now()
        try queue.enqueue(NewJob(kind: "plain", delay: 30))
        try queue.enqueue(NewJob(kind: "sync", delay: 20, constraints: JobConstraints(requiresNetwork: true)))
        try queue.enqueue(NewJob(kind: "index", delay: 10, constraints: JobConstraints(requiresCharging: true)))
        try queue.enqueue(
            NewJob(kind: "both", delay: 40, constraints: JobConstraints(requiresNetwork: true, requiresCharging: true)))
        #expect(try queue.schedulingHints().count == 4, "within iOS's limits: one hint per group")
        let hints = try queue.schedulingHints(within: SchedulingLimits(refreshRequests: 1, processingRequests: 1))
        #expect(hints.count == 2)
        #expect(hints[0] == SchedulingHint(earliestBeginDate: now.addingTimeInterval(30), kinds: ["plain"]))
        #expect(
            hints[1]
                == SchedulingHint(
                    earliestBeginDate: now.addingTimeInterval(10), requiresNetworkConnectivity: false,
                    requiresExternalPower: false, jobCount: 3, kinds: ["sync", "index", "both"], request: .processing))
        let none = try queue.schedulingHints(within: SchedulingLimits(refreshRequests: 0, processingRequests: 0))
        #expect(none.isEmpty)
        // The recipe's one request: the job that could run first, with its own requirements.
        let next = try #require(try queue.nextProcessingHint())
        #expect(next.earliestBeginDate == now.addingTimeInterval(10) && next.requiresExternalPower)
        #expect(!next.requiresNetworkConnectivity && next.request == .processing)
        try closeChecked(queue)
    }
}
