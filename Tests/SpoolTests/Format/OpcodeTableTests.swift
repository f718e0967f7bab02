import Foundation
import SpoolTestSupport
import Testing

@testable import Spool

/// The opcode table (`TransactionCodec.Opcode.facts`) and `FORMAT.md` say the same: every opcode
/// the document lists is in the table under the same name and no other is, each needs the body
/// version the document gives its range of opcodes, and the fields test files use
/// (``FieldGrammar``) are the document's. A new opcode is so listed in one table in the sources,
/// and the document (and the test grammar) cannot be forgotten.
@Suite(.blocking) struct OpcodeTableTests {
    /// `FORMAT.md`'s operation tables: opcode → (name, "fields, in order").
    private func documentedOperations() throws -> [UInt8: (name: String, fields: String)] {
        let document = try String(contentsOfFile: packageRoot() + "/FORMAT.md", encoding: .utf8)
        var operations: [UInt8: (name: String, fields: String)] = [:]
        var inTable = false
        for line in document.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("| opcode | operation | fields, in order |") {
                inTable = true
                continue
            }
            guard inTable else { continue }
            guard line.hasPrefix("|") else {
                inTable = false
                continue
            }
            let cells = line.split(separator: "|", omittingEmptySubsequences: false)
                .map { $0.trimmingCharacters(in: .whitespaces) }
            guard cells.count >= 4, let opcode = UInt8(cells[1]) else { continue }
            #expect(operations[opcode] == nil, "opcode \(opcode) listed twice in FORMAT.md")
            operations[opcode] = (cells[2], cells[3])
        }
        return operations
    }

    @Test func everyOpcodeIsDocumentedUnderItsName() throws {
        let documented = try documentedOperations()
        #expect(Set(documented.keys) == Set(TransactionCodec.Opcode.allCases.map(\.rawValue)))
        for opcode in TransactionCodec.Opcode.allCases {
            #expect(documented[opcode.rawValue]?.name == "\(opcode.facts.name)", "opcode \(opcode.rawValue)")
        }
    }

    /// "1 for opcodes 1 to 10; 2 when it holds any of opcodes 11 to 13; …" in *Transaction body*.
    @Test func everyOpcodeNeedsTheBodyVersionTheDocumentGives() throws {
        let document = try String(contentsOfFile: packageRoot() + "/FORMAT.md", encoding: .utf8)
        let text = document.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        let rule = try #require(text.range(of: "`body_version` is the lowest version")).upperBound
        let sentence = text[rule...].prefix { $0 != "." }
        let pattern = try Regex(#"(\d+) (?:for|when it holds any of) opcodes (\d+) to (\d+)"#)
        var covered = Set<UInt8>()
        for match in sentence.matches(of: pattern) {
            let numbers = match.output.dropFirst().compactMap { $0.substring.flatMap { UInt8($0) } }
            try #require(numbers.count == 3)
            for raw in numbers[1]...numbers[2] {
                let opcode = try #require(TransactionCodec.Opcode(rawValue: raw), "FORMAT.md names opcode \(raw)")
                #expect(opcode.minimumBodyVersion == numbers[0], "opcode \(raw)")
                covered.insert(raw)
            }
        }
        // "9 when it holds opcode 33 or any of opcodes 38 to 39": a single opcode beside a range.
        let single = try Regex(#"(\d+) when it holds opcode (\d+) or any of opcodes (\d+) to (\d+)"#)
        for match in sentence.matches(of: single) {
            let numbers = match.output.dropFirst().compactMap { $0.substring.flatMap { UInt8($0) } }
            try #require(numbers.count == 4)
            for raw in [numbers[1]] + Array(numbers[2]...numbers[3]) {
                let opcode = try #require(TransactionCodec.Opcode(rawValue: raw), "FORMAT.md names opcode \(raw)")
                #expect(opcode.minimumBodyVersion == numbers[0], "opcode \(raw)")
                covered.insert(raw)
            }
        }
        #expect(covered == Set(TransactionCodec.Opcode.allCases.map(\.rawValue)))
        #expect(
            text.contains(
                "body_version:u8 ("
                    + (TransactionCodec.baseBodyVersion...TransactionCodec.bodyVersion)
                    .map(String.init).dropLast().joined(separator: ", ") + " or \(TransactionCodec.bodyVersion))"))
    }

    /// The test grammar is the document's, where the document spells the fields out.
    @Test func theTestGrammarIsTheDocuments() throws {
        let documented = try documentedOperations()
        #expect(Set(FieldGrammar.operations.keys) == Set(documented.keys))
        let grammar = try Regex(#"^[a-z_]+:\S+( [a-z_]+:\S+)*$"#)
        for (opcode, entry) in documented where entry.fields.wholeMatch(of: grammar) != nil {
            #expect(FieldGrammar.operations[opcode] == entry.fields, "opcode \(opcode)")
        }
    }
}
