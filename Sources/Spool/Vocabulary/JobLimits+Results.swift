extension JobLimits {
    /// The largest result a successful job may record (`JobQueue.complete(_:result:)`,
    /// `JobContext.setResult(_:)`), in bytes. A result is kept in memory with its job (and copied into
    /// each dependent that waited for it) and into every snapshot: a small answer, not the work's data.
    public static let maxResultBytes = 64 << 10
    /// The longest tag of a job (``NewJob/tags``), in UTF-8 bytes.
    public static let maxTagBytes = 128
    /// The most tags a job may carry (``NewJob/tags``).
    public static let maxTags = 32
}
