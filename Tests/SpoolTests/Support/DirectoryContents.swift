import Foundation

/// Every file name in `directory` with its bytes: what a check that "nothing changed" compares.
func directoryContents(_ directory: String) throws -> [String: [UInt8]] {
    var files: [String: [UInt8]] = [:]
    for name in try FileManager.default.contentsOfDirectory(atPath: directory) {
        files[name] = try readFile(directory + "/" + name)
    }
    return files
}
