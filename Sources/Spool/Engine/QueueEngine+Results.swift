/// Results and tags: the checks of the values before anything is written (FORMAT.md, "Results and tags").
extension QueueEngine {
    /// A result fits: at most ``JobLimits/maxResultBytes``.
    ///
    /// - Throws: ``SpoolError/Code/invalidArgument``.
    static func checkResult(_ result: [UInt8]) throws {
        guard result.count <= JobLimits.maxResultBytes else {
            throw SpoolError.invalidArgument(
                "the result of \(result.count) bytes is over the limit of \(JobLimits.maxResultBytes)")
        }
    }

    /// A request's tags fit: at most ``JobLimits/maxTags``, each 1 to ``JobLimits/maxTagBytes`` UTF-8
    /// bytes. Returns them in their on-disk order.
    ///
    /// - Throws: ``SpoolError/Code/invalidArgument``.
    static func checkTags(_ tags: Set<String>) throws -> [String] {
        guard !tags.isEmpty else { return [] }
        guard tags.count <= JobLimits.maxTags else {
            throw SpoolError.invalidArgument("\(tags.count) tags are over the limit of \(JobLimits.maxTags)")
        }
        let ordered = ResultsCodec.ordered(tags)
        for tag in ordered { try checkText(tag, name: "tag", maxBytes: JobLimits.maxTagBytes) }
        return ordered
    }

    /// A tag to look jobs up by fits, as a job's tag must.
    ///
    /// - Throws: ``SpoolError/Code/invalidArgument``.
    static func checkTag(_ tag: String) throws {
        try checkText(tag, name: "tag", maxBytes: JobLimits.maxTagBytes)
    }
}
