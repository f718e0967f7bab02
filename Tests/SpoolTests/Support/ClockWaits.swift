import Foundation

@testable import Spool

/// Waits until `count` tasks sleep on `clock` (they register from their own tasks).
func waitForSleepers(_ clock: ManualClock, count: Int) async {
    while clock.sleepingDeadlines.count < count { await Task.yield() }
}

/// Waits until the tasks sleeping on `clock` are exactly those with `deadlines` (a runner's
/// sleeper registers from its own task, just after the runner reports it is waiting).
func waitForSleep(_ clock: ManualClock, until deadlines: [Date]) async {
    while clock.sleepingDeadlines != deadlines { await Task.yield() }
}
