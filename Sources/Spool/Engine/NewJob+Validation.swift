/// The check of an enqueue request before anything is written: every value in range, its kind known, its
/// options consistent; the result is the enqueue as the log will hold it.
extension NewJob {
    /// Checks the request against `configuration` and makes its enqueue at `now` (the owner's and a
    /// producer's one rule); `generatedID` is its id when it names none (a fresh UUID by default).
    ///
    /// - Throws: ``SpoolError/Code/invalidArgument`` naming the first value out of range.
    func validated(now: Int64, generatedID: String? = nil, configuration: Configuration) throws -> NewEnqueue {
        let request = self
        try JobLimits.checkText(request.kind, name: "kind", maxBytes: JobLimits.maxKindBytes)
        try configuration.checkKnown(kind: request.kind, jobID: request.id)
        if let key = request.uniqueKey {
            try JobLimits.checkText(key, name: "unique key", maxBytes: JobLimits.maxUniqueKeyBytes)
        }
        if let id = request.id { try JobLimits.checkText(id.rawValue, name: "job id", maxBytes: JobLimits.maxIDBytes) }
        guard request.payload.count <= configuration.maximumPayloadSize else {
            throw SpoolError.invalidArgument(
                "the payload of \(request.payload.count) bytes is over the limit of \(configuration.maximumPayloadSize)"
            )
        }
        guard request.delay >= 0, request.delay < JobLimits.maxDelay else {
            throw SpoolError.invalidArgument(
                "the delay must be at least 0 s and under \(Int64(JobLimits.maxDelay)) s, not \(request.delay)")
        }
        guard JobLimits.priorities.contains(request.priority), let priority = Int32(exactly: request.priority) else {
            throw SpoolError.invalidArgument(
                "priority must be from \(JobLimits.priorities.lowerBound) to \(JobLimits.priorities.upperBound), not \(request.priority)"
            )
        }
        if let policy = request.retryPolicy {
            try policy.validate()
            if case .table(let delays) = policy.schedule, delays.count > RetriesCodec.maxTableDelays {
                throw SpoolError.invalidArgument(
                    "a job's own retry table holds at most \(RetriesCodec.maxTableDelays) delays, not \(delays.count)")
            }
        }
        let maxAttempts =
            request.maxAttempts ?? request.retryPolicy?.maxAttempts ?? configuration.retryPolicy.maxAttempts
        guard (1...JobLimits.maxAttempts).contains(maxAttempts) else {
            throw SpoolError.invalidArgument("maxAttempts must be from 1 to \(JobLimits.maxAttempts)")
        }
        if let runAt = request.runAt {
            guard Millis.isRepresentable(runAt) else {
                throw SpoolError.invalidArgument("runAt must be a finite date between the years 1 and 9999")
            }
        }
        var options = EnqueueOptions()
        for name in request.constraints.requiredConditions {
            try JobLimits.checkText(name, name: "condition name", maxBytes: JobLimits.maxKindBytes)
        }
        options.constraints = request.constraints.isEmpty ? nil : request.constraints
        var seen = Set<String>()
        for dependency in request.dependencies {
            try JobLimits.checkText(dependency.rawValue, name: "prerequisite id", maxBytes: JobLimits.maxIDBytes)
            if seen.insert(dependency.rawValue).inserted { options.dependencies.append(dependency.rawValue) }
        }
        if let periodic = request.periodic {
            guard periodic.interval.isFinite, periodic.interval >= PeriodicSchedule.minimumInterval,
                periodic.interval < 1e9
            else {
                throw SpoolError.invalidArgument(
                    "a periodic interval must be at least \(Int(PeriodicSchedule.minimumInterval)) seconds")
            }
            guard
                periodic.flex == 0
                    || (periodic.flex >= PeriodicSchedule.minimumFlex && periodic.flex <= periodic.interval)
            else {
                throw SpoolError.invalidArgument(
                    "a periodic flex must be 0 or from \(Int(PeriodicSchedule.minimumFlex)) seconds to the interval")
            }
            guard request.dependencies.isEmpty, request.uniquePolicy != .append else {
                throw SpoolError.invalidArgument("a periodic job cannot have prerequisites nor be appended to a chain")
            }
            options.periodic = (Millis.from(seconds: periodic.interval), Millis.from(seconds: periodic.flex))
        }
        let tags = try JobLimits.checkTags(request.tags)
        let base = request.runAt.map(Millis.from) ?? now
        return NewEnqueue(
            job: LogOperation.Enqueue(
                id: request.id?.rawValue ?? generatedID ?? RandomPool.shared.nextUUIDString(), kind: request.kind,
                payload: .unwritten, priority: Int64(priority), createdAt: now,
                runAt: base + Millis.from(seconds: request.delay), maxAttempts: Int64(maxAttempts),
                uniqueKey: request.uniqueKey, options: options),
            payload: request.payload, tags: tags,
            retrySchedule: request.retryPolicy.map { RetriesCodec.stored($0.schedule) })
    }
}
