/// What an acknowledged change survives: the sync the log makes before a call returns
/// (``Configuration/durability``).
///
/// | | `.full` (the default) | `.ordered` |
/// |---|---|---|
/// | Apple platforms | `fcntl(F_FULLFSYNC)`: the drive flushes its cache | `fcntl(F_BARRIERFSYNC)`: the drive keeps the order of writes |
/// | Linux | `fdatasync` | `fdatasync` (Linux has no barrier-only sync): as `.full` |
/// | the app or the kernel crashes | nothing acknowledged is lost | nothing acknowledged is lost |
/// | power is lost | nothing acknowledged is lost | the last acknowledged changes may be lost; what survives is every change up to some point, never a later one without an earlier one, never a torn or reordered record |
///
/// Either way recovery opens a consistent queue. Only the log's commit syncs change: creating a
/// log file, reserving its space, writing a snapshot and every directory change keep full syncs.
public enum Durability: Sendable, Equatable {
    /// Every acknowledged change survives power loss: `F_FULLFSYNC` on Apple platforms,
    /// `fdatasync` on Linux.
    case full
    /// Every acknowledged change survives a crash of the app or of the kernel; power loss may
    /// drop the last ones, in order (a prefix of what was acknowledged survives). `F_BARRIERFSYNC`
    /// on Apple platforms, several times cheaper than `F_FULLFSYNC`; the same `fdatasync` as
    /// ``full`` on Linux.
    case ordered
}
