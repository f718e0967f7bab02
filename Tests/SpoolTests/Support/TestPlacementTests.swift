import Foundation
import SpoolTestSupport
import Testing

/// Where the package's tests run (issue 45): a synchronous test holds its thread for its whole run,
/// so it belongs to a `.blocking` suite (``BlockingTests``), never to Swift's cooperative pool, which
/// the async tests need; and a time limit measures an async test on the pool, never a queue of
/// blocking tests, and is never above a minute. Read from the sources of every test target, so that
/// a test added in the wrong place fails here instead of starving another on a two-core machine.
@Suite(.blocking) struct TestPlacementTests {
    /// One `@Test` as the sources declare it.
    struct Declaration {
        var file: String
        var name: String
        var attribute: String
        var isAsync: Bool
        /// The `@Suite` attributes of the types around it, outermost first.
        var suites: [String]
    }

    static func declarations() throws -> [Declaration] {
        let root = packageRoot() + "/Tests"
        let files = (FileManager.default.subpaths(atPath: root) ?? []).filter {
            $0.hasSuffix(".swift") && !$0.hasPrefix("SpoolTestSupport/")
        }
        let outlines = try files.sorted().map { file in
            (file, SwiftOutline(try String(contentsOfFile: root + "/" + file, encoding: .utf8)))
        }
        // A suite's traits reach the tests of its extensions, in any file.
        let suites = outlines.reduce(into: [String: String]()) { $0.merge($1.1.suites) { first, _ in first } }
        return outlines.flatMap { file, outline in
            outline.tests.map { test in
                let around = test.suites.map {
                    $0.hasPrefix("extension ") ? suites[String($0.dropFirst(10))] ?? "" : $0
                }
                return Declaration(
                    file: file, name: test.name, attribute: test.attribute, isAsync: test.isAsync, suites: around)
            }
        }
    }

    @Test func everySynchronousTestIsInABlockingSuite() throws {
        let tests = try Self.declarations()
        #expect(tests.count > 500, "the outline found \(tests.count) tests")
        for test in tests where !test.isAsync {
            #expect(
                test.suites.contains { $0.contains(".blocking") },
                "\(test.file): \(test.name) is synchronous outside a @Suite(.blocking)")
        }
    }

    @Test func timeLimitsAreOnAsyncTestsOnThePoolAndAtMostAMinute() throws {
        for test in try Self.declarations() {
            let limits = ([test.attribute] + test.suites).filter { $0.contains(".timeLimit(") }
            for limit in limits {
                #expect(limit.contains(".timeLimit(.minutes(1))"), "\(test.file): \(test.name): \(limit)")
            }
            guard !limits.isEmpty else { continue }
            let blocking = test.suites.contains { $0.contains(".blocking") } && !test.attribute.contains(".onThePool")
            #expect(
                test.isAsync && !blocking,
                "\(test.file): \(test.name) has a time limit but runs among the blocking tests, which queue")
        }
    }

    /// The outline finds async and sync tests, nested suites and multi-line signatures.
    @Test func theOutlineReadsDeclarationsAsWritten() {
        let source = #"""
            @Suite(.blocking) struct Outer {
                let text = "a { brace in a string"
                // a } brace in a comment
                @Test(.onThePool, arguments: [1, 2]) func first(value: Int) async throws {}
                @Suite struct Inner {
                    @Test func second() throws { if true {} }
                }
            }
            @Suite struct Other {
                @Test(.timeLimit(.minutes(1))) func third() async throws
                {
                }
            }
            extension Outer {
                @Test func fourth() {}
            }
            """#
        let outline = SwiftOutline(source)
        let tests = outline.tests
        #expect(tests.map(\.name) == ["first", "second", "third", "fourth"])
        #expect(tests.map(\.isAsync) == [true, false, true, false])
        #expect(tests.map(\.suites.count) == [1, 2, 1, 1])
        #expect(tests[3].suites == ["extension Outer"] && outline.suites["Outer"] == "@Suite(.blocking)")
        #expect(tests[1].suites[0].contains(".blocking") && !tests[1].suites[1].contains(".blocking"))
        #expect(tests[0].attribute == "@Test(.onThePool, arguments: [1, 2])")
    }
}

/// The `@Test` functions of one Swift source and the `@Suite` types around each: enough of Swift
/// to tell where a test runs (strings and comments skipped, braces counted).
struct SwiftOutline {
    struct TestFunction {
        var name: String
        var attribute: String
        var isAsync: Bool
        /// The `@Suite` attributes around it, outermost first; `extension Name` for an extension.
        var suites: [String]
    }
    private(set) var tests: [TestFunction] = []
    /// The `@Suite` attribute of each type the source declares with one, by name.
    private(set) var suites: [String: String] = [:]

    init(_ source: String) {
        let code = Self.blankingStringsAndComments(Array(source.utf8))
        var around: [(attribute: String, depth: Int)] = []
        var depth = 0
        var index = 0
        var pendingSuite: String?
        while index < code.count {
            if let attribute = Self.attribute("@Suite", at: index, in: code) {
                pendingSuite = String(decoding: code[index..<attribute], as: UTF8.self)
                index = attribute
                continue
            }
            if let attribute = Self.attribute("@Test", at: index, in: code) {
                let text = String(decoding: code[index..<attribute], as: UTF8.self)
                let body = code[attribute...].firstIndex(of: UInt8(ascii: "{")) ?? code.count
                let signature = String(decoding: code[attribute..<body], as: UTF8.self)
                let name = signature.split(separator: "func ").dropFirst().first?.prefix { $0 != "(" } ?? ""
                let afterParameters = signature.split(separator: ")").last ?? ""
                tests.append(
                    TestFunction(
                        name: String(name), attribute: text, isAsync: afterParameters.contains("async"),
                        suites: around.map(\.attribute)))
                index = attribute
                continue
            }
            if let (keyword, name, end) = Self.declaration(at: index, in: code) {
                if keyword == "extension" {
                    pendingSuite = "extension " + name
                } else if let suite = pendingSuite, !suite.hasPrefix("extension ") {
                    suites[name] = suite
                }
                index = end
                continue
            }
            switch code[index] {
            case UInt8(ascii: "{"):
                depth += 1
                if let suite = pendingSuite {
                    around.append((suite, depth))
                    pendingSuite = nil
                }
            case UInt8(ascii: "}"):
                if around.last?.depth == depth { around.removeLast() }
                depth -= 1
            default: break
            }
            index += 1
        }
    }

    /// A type declaration or extension starting at `index`: its keyword, name and end.
    private static func declaration(at index: Int, in code: [UInt8]) -> (String, String, Int)? {
        guard index == 0 || !isIdentifier(code[index - 1]) else { return nil }
        for keyword in ["struct ", "class ", "enum ", "actor ", "extension "] {
            let bytes = Array(keyword.utf8)
            guard code[index] == bytes[0], index + bytes.count < code.count,
                Array(code[index..<index + bytes.count]) == bytes
            else { continue }
            var end = index + bytes.count
            while end < code.count && isIdentifier(code[end]) { end += 1 }
            let name = String(decoding: code[index + bytes.count..<end], as: UTF8.self)
            return name.isEmpty ? nil : (String(keyword.dropLast()), name, end)
        }
        return nil
    }

    private static func isIdentifier(_ byte: UInt8) -> Bool {
        (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z"))
            || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
            || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) || byte == UInt8(ascii: "_")
    }

    /// The end of the attribute `name` (with its parenthesised arguments) when it starts at `index`.
    private static func attribute(_ name: String, at index: Int, in code: [UInt8]) -> Int? {
        let bytes = Array(name.utf8)
        guard code[index] == bytes[0], index + bytes.count < code.count,
            Array(code[index..<index + bytes.count]) == bytes
        else { return nil }
        var end = index + bytes.count
        let next = code[end]
        guard !(next >= UInt8(ascii: "A") && next <= UInt8(ascii: "z")) else { return nil }
        guard next == UInt8(ascii: "(") else { return end }
        var open = 0
        while end < code.count {
            if code[end] == UInt8(ascii: "(") { open += 1 }
            if code[end] == UInt8(ascii: ")") {
                open -= 1
                if open == 0 { return end + 1 }
            }
            end += 1
        }
        return end
    }

    /// The source with the contents of string literals and comments replaced by spaces (their
    /// quotes and lengths kept), so that a brace inside them is not counted.
    private static func blankingStringsAndComments(_ source: [UInt8]) -> [UInt8] {
        var code = source
        var index = 0
        func starts(_ text: StaticString, _ at: Int) -> Bool {
            let count = text.utf8CodeUnitCount
            guard at + count <= source.count else { return false }
            return text.withUTF8Buffer { bytes in (0..<count).allSatisfy { source[at + $0] == bytes[$0] } }
        }
        func blank(_ range: Range<Int>) {
            for position in range where code[position] != UInt8(ascii: "\n") { code[position] = UInt8(ascii: " ") }
        }
        while index < source.count {
            if starts("//", index) {
                let end = source[index...].firstIndex(of: UInt8(ascii: "\n")) ?? source.count
                blank(index..<end)
                index = end
            } else if starts("/*", index) {
                var end = index + 2
                while end < source.count && !starts("*/", end) { end += 1 }
                blank(index..<min(end + 2, source.count))
                index = end + 2
            } else if starts("\"\"\"", index) || starts("#\"\"\"", index) {
                let raw = source[index] == UInt8(ascii: "#")
                var end = index + (raw ? 4 : 3)
                while end < source.count && !(raw ? starts("\"\"\"#", end) : starts("\"\"\"", end)) { end += 1 }
                blank(index + (raw ? 4 : 3)..<min(end, source.count))
                index = end + (raw ? 4 : 3)
            } else if source[index] == UInt8(ascii: "\"") {
                var end = index + 1
                while end < source.count && source[end] != UInt8(ascii: "\"") && source[end] != UInt8(ascii: "\n") {
                    end += source[end] == UInt8(ascii: "\\") ? 2 : 1
                }
                blank(index + 1..<min(end, source.count))
                index = end + 1
            } else {
                index += 1
            }
        }
        return code
    }
}
