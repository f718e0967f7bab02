extension JobLimits {
    /// The longest park key (`JobQueue.park(_:key:deadline:)`), in UTF-8 bytes.
    public static let maxParkKeyBytes = 500
    /// The largest checkpoint a handler may record (``JobContext/checkpoint(_:)``), in bytes. A checkpoint
    /// is kept in memory with its job and copied into every snapshot: a cursor, not the work's data.
    public static let maxCheckpointBytes = 64 << 10
}
