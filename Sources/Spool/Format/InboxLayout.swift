extension QueueDirectoryLayout {
    /// The Darwin notification a producer posts after each synced write and the owner's runner
    /// waits on (Apple platforms): `com.spool.inbox.` and 8 hex digits of the CRC-32C of the queue
    /// directory's path as the processes open it (the same path, so the same name).
    static func inboxNotificationName(directory: String) -> String {
        let hex = String(CRC32C.checksum(Array(directory.utf8)), radix: 16)
        return "com.spool.inbox." + String(repeating: "0", count: 8 - hex.count) + hex
    }
}
