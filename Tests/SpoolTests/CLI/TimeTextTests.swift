import Foundation
import SpoolTestSupport
import Testing

@testable import SpoolCommands

/// How `spool` writes instants: ISO 8601 in UTC with milliseconds, valid at every instant a `Date`
/// read from a queue can hold, up to the ends of the range of 64-bit milliseconds.
@Suite(.blocking) struct TimeTextTests {
    @Test func theEndsOfTheRangeAreValidISO8601() {
        #expect(ISO8601.string(from: Date(timeIntervalSince1970: 0)) == "1970-01-01T00:00:00.000Z")
        #expect(ISO8601.string(from: Date(timeIntervalSince1970: 1_800_000_000)) == "2027-01-15T08:00:00.000Z")
        // The last and first instants of 64-bit milliseconds, and dates beyond them (as a `Date`
        // made from one holds them after rounding), are the range's ends.
        let latest = ISO8601.string(millisecondsSince1970: .max)
        let earliest = ISO8601.string(millisecondsSince1970: .min)
        #expect(latest == "+292278994-08-17T07:12:55.807Z")
        #expect(earliest == "-292275055-05-16T16:47:04.192Z")
        #expect(ISO8601.string(from: Date(timeIntervalSince1970: Double(Int64.max) / 1000)) == latest)
        #expect(ISO8601.string(from: Date(timeIntervalSince1970: Double(Int64.min) / 1000)) == earliest)
        #expect(ISO8601.string(from: Date(timeIntervalSince1970: 1e300)) == latest)
        #expect(ISO8601.string(from: Date(timeIntervalSince1970: -1e300)) == earliest)
        // Years outside 0000–9999 in the expanded form: a sign and at least six digits.
        #expect(ISO8601.string(millisecondsSince1970: 253_402_300_799_999) == "9999-12-31T23:59:59.999Z")
        #expect(ISO8601.string(millisecondsSince1970: 253_402_300_800_000) == "+010000-01-01T00:00:00.000Z")
        let ancient = ISO8601.string(millisecondsSince1970: -250_000_000_000_000)
        #expect(ancient.first == "-" && ancient.dropFirst().prefix(while: \.isNumber).count == 6, "\(ancient)")
    }
}
