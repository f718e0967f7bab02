/// A JSON value whose objects keep their keys in the order they were built,
/// so that output is deterministic and reads in a sensible order.
indirect enum JSONValue: Sendable, Equatable {
    case string(String)
    case integer(Int64)
    /// A finite number (non-finite ones are written as null, which JSON has no number for).
    case number(Double)
    case bool(Bool)
    case null
    case array([JSONValue])
    case object([(key: String, value: JSONValue)])

    /// Wraps optional text: the text, or `null`.
    static func optional(_ text: String?) -> JSONValue { text.map(JSONValue.string) ?? .null }

    /// Wraps a whole number.
    static func integer(_ number: Int) -> JSONValue { .integer(Int64(number)) }

    /// The value as compact JSON text on one line.
    var rendered: String {
        var text = ""
        write(to: &text)
        return text
    }

    /// An array as JSON text with one element per line, which stays valid JSON
    /// and is easy to read and to `grep`. Other values render as ``rendered``.
    var renderedOneElementPerLine: String {
        guard case .array(let elements) = self, !elements.isEmpty else { return rendered }
        return "[\n" + elements.map(\.rendered).joined(separator: ",\n") + "\n]"
    }

    /// Appends the value's compact JSON text.
    private func write(to text: inout String) {
        switch self {
        case .string(let string):
            Self.writeString(string, to: &text)
        case .integer(let number):
            text += String(number)
        case .number(let number):
            text += number.isFinite ? String(number) : "null"
        case .bool(let flag):
            text += flag ? "true" : "false"
        case .null:
            text += "null"
        case .array(let elements):
            text += "["
            for (index, element) in elements.enumerated() {
                if index > 0 { text += "," }
                element.write(to: &text)
            }
            text += "]"
        case .object(let members):
            text += "{"
            for (index, member) in members.enumerated() {
                if index > 0 { text += "," }
                Self.writeString(member.key, to: &text)
                text += ":"
                member.value.write(to: &text)
            }
            text += "}"
        }
    }

    /// Writes a string literal: quotes, backslashes and control characters
    /// escaped (RFC 8259), U+2028 and U+2029 too so the text is also valid
    /// JavaScript; everything else as UTF-8.
    private static func writeString(_ string: String, to text: inout String) {
        text += "\""
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\"": text += "\\\""
            case "\\": text += "\\\\"
            default:
                if let escape = controlEscape(scalar) { text += escape } else { text.unicodeScalars.append(scalar) }
            }
        }
        text += "\""
    }

    /// The JSON escape of a control character (below U+0020) or of U+2028 or U+2029:
    /// `\n`, `\r`, `\t`, `\b`, `\f`, otherwise `\u` and four hex digits; `nil` for any other scalar.
    static func controlEscape(_ scalar: Unicode.Scalar) -> String? {
        switch scalar {
        case "\n": return "\\n"
        case "\r": return "\\r"
        case "\t": return "\\t"
        case "\u{08}": return "\\b"
        case "\u{0C}": return "\\f"
        case "\u{2028}", "\u{2029}": return "\\u" + String(scalar.value, radix: 16)
        default:
            guard scalar.value < 0x20 else { return nil }
            let hex = String(scalar.value, radix: 16)
            return "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
        }
    }

    /// Whether two values are the same, object keys compared in order.
    static func == (lhs: JSONValue, rhs: JSONValue) -> Bool {
        switch (lhs, rhs) {
        case (.string(let a), .string(let b)): return a == b
        case (.integer(let a), .integer(let b)): return a == b
        case (.number(let a), .number(let b)): return a == b
        case (.bool(let a), .bool(let b)): return a == b
        case (.null, .null): return true
        case (.array(let a), .array(let b)): return a == b
        case (.object(let a), .object(let b)):
            return a.count == b.count && zip(a, b).allSatisfy { $0.key == $1.key && $0.value == $1.value }
        default: return false
        }
    }
}
