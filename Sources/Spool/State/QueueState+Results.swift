// Results and tags, the apply side (FORMAT.md, "Results and tags"): a job's result, the results its
// prerequisites handed it, its tags.
extension QueueState {
    /// Applies `result`, `prerequisite_result` or `tags`: each sets a field of an existing job, in any state.
    mutating func applyResultOrTags(_ operation: LogOperation) throws(Refusal) {
        switch operation {
        case .result(let id, let data):
            let (found, position) = try located(id, in: JobState.allCases, for: .result)
            var job = found
            job.result = data
            storeOne(job, at: position)
        case .prerequisiteResult(let id, let prerequisite, let data):
            let (found, position) = try located(id, in: JobState.allCases, for: .prerequisiteResult)
            var job = found
            job.prerequisiteResults[prerequisite] = data
            storeOne(job, at: position)
        case .tags(let id, let tags):
            let (found, position) = try located(id, in: JobState.allCases, for: .tags)
            var job = found
            job.tags = tags
            storeOne(job, at: position)
        default:
            preconditionFailure("not a result or tags operation")
        }
    }

    /// The rule of `result`, `prerequisite_result` and `tags`: the job exists.
    func checkResultOrTags(_ operation: LogOperation) throws(Refusal) {
        switch operation {
        case .result(let id, _): _ = try located(id, in: JobState.allCases, for: .result)
        case .prerequisiteResult(let id, _, _):
            _ = try located(id, in: JobState.allCases, for: .prerequisiteResult)
        case .tags(let id, _): _ = try located(id, in: JobState.allCases, for: .tags)
        default: preconditionFailure("not a result or tags operation")
        }
    }

    /// The results of the succeeded prerequisites among `dependencies` that recorded one: what a job
    /// enqueued after them holds from the start.
    func resultsOfSucceeded(_ dependencies: [String]) -> [String: [UInt8]] {
        var found: [String: [UInt8]] = [:]
        for id in dependencies {
            if let prerequisite = jobs[id], prerequisite.state == .succeeded, let result = prerequisite.result {
                found[id] = result
            }
        }
        return found
    }
}
