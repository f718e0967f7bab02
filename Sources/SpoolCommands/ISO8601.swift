import Foundation

/// Formats instants as ISO 8601 in UTC with milliseconds, `2026-11-29T14:22:29.123Z`,
/// computed directly from the count of days since 1970 (no calendar, no formatter,
/// so the result never depends on the locale or time zone of the machine).
enum ISO8601 {
    private static let millisecondsPerDay: Int64 = 86_400_000

    /// `date` to the nearest millisecond. A date beyond the range of 64-bit milliseconds (a stored
    /// time is such a count, so a queue holds none beyond it but for rounding: `Date` keeps a
    /// `Double`) is shown clamped to the range's end, a year with a sign and nine digits.
    static func string(from date: Date) -> String {
        let milliseconds = (date.timeIntervalSince1970 * 1000).rounded()
        if let exact = Int64(exactly: milliseconds) { return string(millisecondsSince1970: exact) }
        return string(millisecondsSince1970: milliseconds > 0 ? .max : .min)
    }

    /// The instant `milliseconds` after 1970-01-01T00:00:00Z (before it, when negative).
    static func string(millisecondsSince1970 milliseconds: Int64) -> String {
        // Floor division, so that instants before 1970 land on the right day.
        var days = milliseconds / millisecondsPerDay
        var remainder = milliseconds % millisecondsPerDay
        if remainder < 0 {
            days -= 1
            remainder += millisecondsPerDay
        }
        let (year, month, day) = civilDate(daysSince1970: days)
        let hour = remainder / 3_600_000
        let minute = remainder / 60_000 % 60
        let second = remainder / 1000 % 60
        let millisecond = remainder % 1000

        let yearText = (0...9999).contains(year) ? pad(year, 4) : (year < 0 ? "-" : "+") + pad(abs(year), 6)
        return
            "\(yearText)-\(pad(month, 2))-\(pad(day, 2))T\(pad(hour, 2)):\(pad(minute, 2)):\(pad(second, 2)).\(pad(millisecond, 3))Z"
    }

    /// The proleptic Gregorian year, month (1–12) and day (1–31) of a day count.
    ///
    /// Works in 400-year cycles (146 097 days, which repeat exactly) of years
    /// that start on 1 March, so that the leap day is the last day of its year
    /// and months from March on have a regular length pattern.
    static func civilDate(daysSince1970: Int64) -> (year: Int64, month: Int64, day: Int64) {
        let daysPerCycle: Int64 = 146_097
        // 0000-03-01 is 719 468 days before 1970-01-01.
        let shifted = daysSince1970 + 719_468
        let cycle = (shifted >= 0 ? shifted : shifted - (daysPerCycle - 1)) / daysPerCycle
        let dayOfCycle = shifted - cycle * daysPerCycle  // 0 ... 146 096
        // Remove the extra day of every 4th year, add back every 100th, remove the 400th's.
        let yearOfCycle = (dayOfCycle - dayOfCycle / 1460 + dayOfCycle / 36_524 - dayOfCycle / 146_096) / 365
        let dayOfYear = dayOfCycle - (365 * yearOfCycle + yearOfCycle / 4 - yearOfCycle / 100)  // 0 ... 365
        // Months from March have lengths 31 30 31 30 31 31 30 31 30 31 31 (29|28): 153 days every 5 months.
        let marchMonth = (5 * dayOfYear + 2) / 153  // 0 = March ... 11 = February
        let day = dayOfYear - (153 * marchMonth + 2) / 5 + 1
        let month = marchMonth < 10 ? marchMonth + 3 : marchMonth - 9
        let year = cycle * 400 + yearOfCycle + (month <= 2 ? 1 : 0)
        return (year, month, day)
    }

    /// The number with leading zeros up to `width` digits.
    private static func pad(_ number: Int64, _ width: Int) -> String {
        let digits = String(number)
        return digits.count >= width ? digits : String(repeating: "0", count: width - digits.count) + digits
    }
}
