import SpoolTestSupport
import Testing

@testable import Spool

/// The merge of the producers' pending records (``InboxMerge``, FORMAT.md *Producer inbox files*, "Order"),
/// as a pure function: stamps in, steps out.
@Suite(.blocking) struct InboxMergeTests {
    static let boot = "boot-now"

    static func stamp(_ monotonic: UInt64, boot: String = boot, at: Int64 = 0) -> InboxStamp {
        InboxStamp(bootID: boot, monotonic: monotonic, at: at)
    }

    /// The order as `file:record` strings, for readable expectations.
    static func order(_ files: [(String, [InboxStamp?])], now: UInt64 = .max) -> [String] {
        InboxMerge.order(
            names: files.map(\.0), stamps: files.map(\.1), cutoff: .init(boot: boot, now: now)
        ).map { "\(files[$0.file].0):\($0.record)" }
    }

    @Test func recordsOfDifferentFilesGoByTheirReadingNotByFileName() {
        let files: [(String, [InboxStamp?])] = [
            ("a", [Self.stamp(20), Self.stamp(40)]),
            ("b", [Self.stamp(10), Self.stamp(30)]),
        ]
        #expect(Self.order(files) == ["b:0", "a:0", "b:1", "a:1"])
    }

    @Test func oneFilesRecordsKeepTheirOrderWhateverTheirReadings() {
        // A clock that went back within one file (a custom clock): the file's order wins.
        let files: [(String, [InboxStamp?])] = [("a", [Self.stamp(50), Self.stamp(5)]), ("b", [Self.stamp(10)])]
        #expect(Self.order(files) == ["b:0", "a:0", "a:1"])
    }

    @Test func equalReadingsGoByFileName() {
        let files: [(String, [InboxStamp?])] = [("b", [Self.stamp(7)]), ("a", [Self.stamp(7)])]
        #expect(Self.order(files) == ["a:0", "b:0"])
    }

    @Test func recordsWithoutAStampComeFirstByFileNameAsBuildsBeforeTheStampIngested() {
        let files: [(String, [InboxStamp?])] = [
            ("c", [Self.stamp(1)]),
            ("b", [nil, nil]),
            ("a", [nil]),
        ]
        #expect(Self.order(files) == ["a:0", "b:0", "b:1", "c:0"])
    }

    @Test func otherBootsComeFirstEachInTurnByTheirEarliestWallClockTime() {
        let files: [(String, [InboxStamp?])] = [
            ("a", [Self.stamp(1)]),
            ("b", [Self.stamp(900, boot: "later", at: 2_000), Self.stamp(901, boot: "later", at: 2_001)]),
            ("c", [Self.stamp(5_000, boot: "earlier", at: 1_000)]),
            ("d", [Self.stamp(3, boot: "later", at: 2_002)]),
        ]
        #expect(Self.order(files) == ["c:0", "d:0", "b:0", "b:1", "a:0"])
    }

    @Test func theOwnersBootTakesOnlyReadingsUpToItsOwnAndAFileStopsAtItsFirstRecordLeft() {
        let files: [(String, [InboxStamp?])] = [
            ("a", [Self.stamp(10), Self.stamp(30), Self.stamp(15)]),
            ("b", [Self.stamp(20), Self.stamp(25)]),
            ("c", [Self.stamp(99, boot: "old")]),
        ]
        #expect(Self.order(files, now: 25) == ["c:0", "a:0", "b:0", "b:1"])
        #expect(Self.order(files, now: 9) == ["c:0"])
        #expect(Self.order(files, now: 30) == ["c:0", "a:0", "b:0", "b:1", "a:1", "a:2"])
    }

    @Test func nothingPendingIsNothingToDo() {
        #expect(Self.order([]) == [])
        #expect(Self.order([("a", [])]) == [])
    }
}
