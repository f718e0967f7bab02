import Foundation

@testable import Spool

/// The reference model of results and tags, written from FORMAT.md's *Results and tags*: a success's
/// result is kept with the job and copied into each job its success unblocks (or enqueued after it); a
/// job's tags never change; a cancel by tag is a cancel of the unfinished jobs carrying it, with the cascade.
extension QueueModel {
    /// The tags the simulations give job `id` (by the number in its id): none, one or two of `t0`, `t1`.
    static func tags(of id: String) -> [String] {
        let number = Int(id.drop { !$0.isNumber }.prefix { $0.isNumber }) ?? 0
        switch number % 4 {
        case 0: return ["t0"]
        case 2: return ["t0", "t1"]
        case 3: return ["t1"]
        default: return []
        }
    }

    /// The result the simulations record for a success picked by `pick`: none for one in three.
    static func result(of pick: Int) -> [UInt8]? {
        pick % 3 == 0 ? nil : Array("result \(pick)".utf8)
    }

    /// The results of the succeeded jobs among `dependencies` that recorded one: what a job enqueued after
    /// them keeps from the start.
    func resultsOfSucceeded(_ dependencies: [String]) -> [String: [UInt8]] {
        var found: [String: [UInt8]] = [:]
        for id in dependencies {
            if let job = jobs[id], job.state == .succeeded, let result = job.result { found[id] = result }
        }
        return found
    }

    /// Differences between a queue's job and the model's in results and tags.
    func resultDifferences(_ job: Job, _ expected: ModelJob) -> [String] {
        var problems: [String] = []
        if job.tags != Set(expected.tags) {
            problems.append("\(job.id).tags: queue \(job.tags.sorted()), model \(expected.tags)")
        }
        if job.result.map(Array.init) != expected.result {
            problems.append(
                "\(job.id).result: queue \(job.result?.count ?? -1) bytes, model \(expected.result?.count ?? -1)")
        }
        let kept = Dictionary(uniqueKeysWithValues: job.prerequisiteResults.map { ($0.key.rawValue, Array($0.value)) })
        if kept != expected.prerequisiteResults {
            problems.append(
                "\(job.id).prerequisiteResults: queue \(kept.keys.sorted()), model \(expected.prerequisiteResults.keys.sorted())"
            )
        }
        return problems
    }
}
