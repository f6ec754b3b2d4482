import Foundation
import RelayCore
import Testing

/// Secret files are their owner's alone from the moment they exist, and a file that cannot be written is
/// named with the system's reason.
struct SecretFileTests {
    /// A new folder of its own under the temporary directory; removed by the caller.
    static func folder() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("secret-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: false)
        return url
    }

    static func permissions(_ path: String) throws -> Int? {
        try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int
    }

    @Test func aNewFileIsMadeForItsOwnerAndAnOldOneIsTakenBack() throws {
        let directory = try Self.folder()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("key").path
        try SecretFile.write(Data("one".utf8), to: path, replacing: false)
        #expect(try Self.permissions(path) == 0o600)
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "one")
        // A file left readable by others is replaced by a new one of the owner's: whoever opened the old file
        // (or links it) does not read the new secret.
        #expect(chmod(path, 0o644) == 0)
        let opened = try FileHandle(forReadingFrom: URL(fileURLWithPath: path))
        defer { try? opened.close() }
        try SecretFile.write(Data("two".utf8), to: path, replacing: true)
        #expect(try Self.permissions(path) == 0o600)
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "two")
        #expect(String(decoding: try opened.readToEnd() ?? Data(), as: UTF8.self) == "one")
        // Nothing is left beside it.
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["key"])
    }

    @Test func whatCannotBeWrittenIsNamedWithTheReason() throws {
        let directory = try Self.folder()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("key").path
        try SecretFile.write(Data("kept".utf8), to: path, replacing: true)
        let failure = { (target: String, replacing: Bool) -> String in
            do {
                try SecretFile.write(Data("new".utf8), to: target, replacing: replacing)
                return "written"
            } catch { return "\(error)" }
        }
        #expect(failure(path, false) == "cannot write \(path): File exists")
        let link = directory.appendingPathComponent("link").path
        #expect(symlink(path, link) == 0)
        #expect(failure(link, true) == "cannot write \(link): Too many levels of symbolic links")
        #expect(failure(path + "/inner", true) == "cannot write \(path)/inner: Not a directory")
        #expect(failure(directory.path, true) == "cannot write \(directory.path): Is a directory")
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "kept")
    }
}
