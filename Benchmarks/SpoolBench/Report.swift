import Foundation

/// Prints the rows as two readable tables (latencies, rates) or as one JSON object.
struct Report {
    let context: Context

    /// Where the figures come from.
    var machine: [String: String] {
        var info = [String: String]()
        var names = utsname()
        uname(&names)
        func text<T>(_ value: T) -> String {
            withUnsafeBytes(of: value) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        }
        info["os"] = "\(text(names.sysname)) \(text(names.release)) \(text(names.machine))"
        info["cores"] = "\(ProcessInfo.processInfo.activeProcessorCount)"
        if let cpuinfo = try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8),
            let line = cpuinfo.split(separator: "\n").first(where: { $0.hasPrefix("model name") }),
            let name = line.split(separator: ":", maxSplits: 1).last
        {
            info["cpu"] = name.trimmingCharacters(in: .whitespaces)
        }
        info["directory"] = context.directory
        info["file_system"] = FileSystemType.name(of: context.directory)
        return info
    }

    private func ratios(_ row: Row) -> [String: Double] {
        var ratios: [String: Double] = [:]
        // The runtime rows time Swift alone, not the disk: a ratio to the floor would mean nothing.
        guard row.workload != "runtime" else { return ratios }
        if let latency = row.latency, let floor = row.floor ?? context.floor?.latency {
            ratios["p50_per_floor"] = latency.p50 / floor.p50
            ratios["p99_per_floor"] = latency.p99 / floor.p99
        }
        if let latency = row.latency, let append = context.appendBaseline?.latency {
            ratios["p50_per_append"] = latency.p50 / append.p50
        }
        if let rate = row.rate, let floor = context.floor?.latency, row.workload != "open" {
            // The rate of back-to-back preallocated pwrite + fdatasync calls is 1 / its p50.
            ratios["rate_per_floor_rate"] = rate * floor.p50 / 1e6
        }
        return ratios
    }

    func printJSON() throws {
        let rows: [[String: Any]] = context.rows.map { row in
            var object: [String: Any] = ["workload": row.workload, "name": row.name]
            if let latency = row.latency {
                object["p50_us"] = latency.p50
                object["p99_us"] = latency.p99
                object["p999_us"] = latency.p999
                object["samples"] = latency.samples
            }
            if let rate = row.rate {
                object["rate"] = rate
                object["unit"] = row.unit ?? ""
            }
            if let floor = row.floor {
                object["paired_floor_p50_us"] = floor.p50
                object["paired_floor_p99_us"] = floor.p99
            }
            for (key, value) in row.figures { object[key] = value }
            for (key, value) in ratios(row) { object[key] = value }
            return object
        }
        let object: [String: Any] = [
            "machine": machine,
            "options": [
                "count": context.options.count, "duration_s": context.options.duration,
                "workloads": context.options.workloads,
            ] as [String: Any], "results": rows,
        ]
        let data = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
        print(String(decoding: data, as: UTF8.self))
    }

    func printTables() {
        let info = machine
        print("spool-bench: \(info["os"] ?? ""), \(info["cores"] ?? "?") cores, \(info["cpu"] ?? "unknown CPU")")
        print("directory: \(info["directory"] ?? "") (\(info["file_system"] ?? "unknown file system"))")
        print("")
        let latencyRows = context.rows.filter { $0.latency != nil }
        if !latencyRows.isEmpty {
            print(pad("latency", 46) + cells(["p50 µs", "p99 µs", "p999 µs", "p50/floor", "p99/floor", "p50/append"]))
            for row in latencyRows {
                let latency = row.latency!
                let ratio = ratios(row)
                print(
                    pad(row.name, 46)
                        + cells([
                            number(latency.p50), number(latency.p99), number(latency.p999),
                            times(ratio["p50_per_floor"]), times(ratio["p99_per_floor"]),
                            times(ratio["p50_per_append"]),
                        ]))
            }
            print("")
        }
        // The stall workload's probe rows carry figures without a rate: they are listed here too.
        let rateRows = context.rows.filter { $0.rate != nil || $0.workload == "stall" }
        if !rateRows.isEmpty {
            print(pad("throughput", 46) + pad("rate", 24) + pad("/ floor rate", 14) + "notes")
            for row in rateRows {
                let notes = row.figures.keys.sorted().filter {
                    !["producers", "workers", "writers", "records", "batch_size"].contains($0)
                }
                .map { "\($0) \(number(row.figures[$0]!))" }.joined(separator: ", ")
                let rate = row.rate.map { "\(number($0)) \(row.unit ?? "")" } ?? "–"
                print(
                    pad(row.name, 46) + pad(rate, 24)
                        + pad(times(ratios(row)["rate_per_floor_rate"]), 14) + notes)
            }
            print("")
        }
        if let floor = context.floor?.latency {
            print(
                "floor: preallocated pwrite + fdatasync of \(Baseline.recordSize) bytes, p50 \(number(floor.p50)) µs "
                    + "(\(number(1e6 / floor.p50)) syncs/s back to back)")
            if context.rows.contains(where: { $0.floor != nil }) {
                print(
                    "a row with a paired floor (the single-producer enqueue, the 1-worker runner) has its ratios to it")
            }
        }
    }

    private func pad(_ text: String, _ width: Int) -> String {
        text.count >= width ? text + " " : text + String(repeating: " ", count: width - text.count)
    }

    private func cells(_ values: [String]) -> String {
        values.map { String(repeating: " ", count: max(0, 11 - $0.count)) + $0 }.joined()
    }

    private func number(_ value: Double) -> String {
        if value >= 100 { return String(format: "%.0f", value) }
        if value >= 10 { return String(format: "%.1f", value) }
        return String(format: "%.2f", value)
    }

    private func times(_ value: Double?) -> String {
        value.map { String(format: "%.2f×", $0) } ?? "–"
    }
}

/// The type of the file system a path is on, from the longest matching mount point in `/proc/mounts`.
enum FileSystemType {
    static func name(of path: String) -> String {
        guard let mounts = try? String(contentsOfFile: "/proc/mounts", encoding: .utf8) else { return "unknown" }
        var best: (point: String, type: String)?
        for line in mounts.split(separator: "\n") {
            let fields = line.split(separator: " ")
            guard fields.count > 2 else { continue }
            let point = String(fields[1])
            let type = String(fields[2])
            let covers = point == "/" || path == point || path.hasPrefix(point + "/")
            if covers && point.count >= (best?.point.count ?? -1) { best = (point, type) }
        }
        guard let best else { return "unknown" }
        return best.type == "tmpfs" ? "tmpfs: syncs cost nothing, these are not disk figures" : best.type
    }
}
