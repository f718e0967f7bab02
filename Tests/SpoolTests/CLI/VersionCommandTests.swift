import Foundation
import SpoolTestSupport
import Testing

@testable import Spool

/// `spool stats` and `spool verify` report the format versions and the applied job migration, run
/// as the built executable.
@Suite(.blocking) struct VersionCommandTests {
    /// Seconds are decimal numbers: `Double` alone would read "0x10" as 16 s.
    @Test func secondsAreDecimal() throws {
        let binary = try #require(ChildProcess.spoolExecutable(), "the spool executable was not built")
        let temporary = TemporaryDirectory()
        defer { temporary.cleanup() }
        let hex = try ChildProcess.run(binary, ["enqueue", temporary.queue, "--kind", "k", "--delay", "0x10"])
        #expect(hex.status == 2, "exit \(hex.status): \(hex.output)")
        let decimal = try ChildProcess.run(binary, ["enqueue", temporary.queue, "--kind", "k", "--delay", "1.5e1"])
        #expect(decimal.status == 0, "exit \(decimal.status): \(decimal.output)")
    }

    /// `spool help COMMAND` prints that command's usage; for a command that does not exist it is a
    /// usage error (exit 2), as `spool COMMAND` is, not the general help with success.
    @Test func helpForAnUnknownCommandIsAUsageError() throws {
        let binary = try #require(ChildProcess.spoolExecutable(), "the spool executable was not built")
        let known = try ChildProcess.run(binary, ["help", "list"])
        #expect(known.status == 0 && known.output.contains("spool list"), "\(known.output)")
        let unknown = try ChildProcess.run(binary, ["help", "bogus"])
        #expect(unknown.status == 2, "exit \(unknown.status): \(unknown.output)")
        #expect(!unknown.output.contains("usage: spool COMMAND"), "it printed the general help: \(unknown.output)")
    }

    /// The process tests' workloads (`exercise`, `own`, `produce`) are the harness's, not `spool`'s:
    /// `spool --help` lists only what a user needs, and `spool own` is an unknown command.
    @Test func theTestHarnessCommandsAreNotSpools() throws {
        let binary = try #require(ChildProcess.spoolExecutable(), "the spool executable was not built")
        let harness = try #require(ChildProcess.harnessExecutable(), "the harness executable was not built")
        let usage = try ChildProcess.run(binary, ["--help"])
        #expect(usage.status == 0 && usage.output.contains("spool enqueue"), "\(usage.output)")
        for command in ["exercise", "own", "produce"] {
            #expect(!usage.output.contains("spool \(command)"), "spool --help lists \(command)")
            #expect(try ChildProcess.run(binary, [command, "q"]).status == 2, "spool \(command) is known")
            let help = try ChildProcess.run(harness, [command, "--help"])
            #expect(help.status == 0 && help.output.contains("SpoolHarness \(command) DIR"), "\(help.output)")
        }
    }

    @Test func statsAndVerifyShowTheVersionsFoundAndTheAppliedMigration() throws {
        let binary = try #require(ChildProcess.spoolExecutable(), "the spool executable was not built")
        let temporary = TemporaryDirectory()
        defer { temporary.cleanup() }
        var configuration = Configuration()
        configuration.autoCompaction = nil
        var queue = try JobQueue(directory: temporary.queue, configuration: configuration)
        for index in 0..<3 { _ = try queue.enqueue(NewJob(kind: "mail", payload: Data("job \(index)".utf8))) }
        try closeChecked(queue)
        configuration.migrations = [.renameKind("mail", to: "email", number: 1), .dropKind("none", number: 2)]
        queue = try JobQueue(directory: temporary.queue, configuration: configuration)
        try closeChecked(queue)

        let stats = try ChildProcess.run(binary, ["stats", temporary.queue])
        #expect(stats.status == 0)
        #expect(
            stats.output.contains(
                "format: file version 2 (1 file); record bodies 1 (3 records), 4 (2 records); "
                    + "this build reads files 1-2, bodies 1, 2, 3, 4"), "\(stats.output)")
        #expect(stats.output.contains("applied job migration: 2"), "\(stats.output)")
        let verify = try ChildProcess.run(binary, ["verify", temporary.queue])
        #expect(verify.status == 0)
        #expect(verify.output.contains("record bodies 1 (3 records), 4 (2 records)"), "\(verify.output)")
        #expect(verify.output.contains("applied job migration: 2"), "\(verify.output)")

        // A record of a newer body version: verify fails (the message, on standard error, names it).
        let path = logFilePath(temporary.queue)
        var bytes = try readFile(path)
        let lastLSN = try LogInspector.verify(directory: temporary.queue).lastLSN
        let body: [UInt8] = [TransactionCodec.bodyVersion + 1, 0]
        body.withUnsafeBytes { raw in
            _ = RecordFrame.append(
                body: raw, type: .transaction, lsn: lastLSN + 1, groupIndex: 0,
                seed: RecordFrame.checksumSeed(instanceID: Array(bytes[12..<28])), to: &bytes)
        }
        try writeFile(path, bytes)
        let refused = try ChildProcess.run(binary, ["verify", temporary.queue])
        #expect(refused.status != 0 && !refused.output.contains("ok:"), "\(refused.output)")
        expectError(.newerFormat) { try LogInspector.verify(directory: temporary.queue) }
    }
}
