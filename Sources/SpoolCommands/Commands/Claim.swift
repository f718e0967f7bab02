import Foundation
import Spool

/// `spool claim`: leases the best ready job and prints the lease as JSON.
enum ClaimCommand {
    /// The command's description and entry point.
    static let command = Command(
        name: "claim",
        synopsis: "DIR [--kind KIND] [--lease SECONDS] [--take-over]",
        summary:
            "Lease the best ready job; print {\"id\",\"token\",\"attempt\",\"job\"} as JSON. Exit 3 when none is ready.",
        help: """
              --kind KIND          only claim a job of this kind
              --lease SECONDS      how long the lease lasts (default 300; at least \(JobLimits.minLeaseDuration),
                                   under \(Int64(JobLimits.maxLeaseDuration)))
            \(QueueAccess.takeOverHelp)

            The best ready job is the one with the highest priority, then the earliest due,
            then the earliest enqueued. The attempt is counted, durably, before the lease is
            printed. Finish the job with `spool complete DIR ID --token TOKEN` or
            `spool fail DIR ID --token TOKEN --error TEXT` before the lease expires.
            """,
        spec: ArgumentSpec(positionals: ["DIR"], valueOptions: ["kind", "lease"], flags: ["take-over"]),
        run: run)

    /// Does the work with the parsed arguments; returns the exit status.
    private static func run(_ arguments: ParsedArguments, _ console: Console) throws -> Int32 {
        let kind = arguments.value("kind")
        let duration = try arguments.seconds("lease")
        let outcome = try QueueAccess.withQueue(
            arguments.positionals[0], takeOver: arguments.flag("take-over"), console: console
        ) {
            queue -> Result<Lease, CommandFailure> in
            if let lease = try queue.claim(kind: kind, leaseDuration: duration) { return .success(lease) }
            let what = kind.map { "no job of kind \($0) is ready" } ?? "no job is ready"
            guard let next = try queue.nextDeadline(kind: kind) else { return .failure(.nothingReady(what)) }
            return .failure(
                .nothingReady("\(what); the next is due at \(Formatting.instant(next, relativeTo: Date()))"))
        }
        let lease = try outcome.get()
        console.out(JobPresentation.json(lease).rendered)
        return ExitStatus.success
    }
}
