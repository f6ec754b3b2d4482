import Foundation

extension Configuration {
    /// A configuration that could not be read or is not valid; ``problems`` lists every one, each with its
    /// key path (`http.port: must be 0...65535`).
    public struct Invalid: Error, Sendable, CustomStringConvertible {
        public var problems: [String]
        public init(_ problems: [String]) { self.problems = problems }
        public var description: String {
            "invalid configuration:\n" + problems.map { "  - " + $0 }.joined(separator: "\n")
        }
    }

    /// The environment variable that names a configuration file, like `--config`.
    public static let fileVariable = "PUSH_RELAY_CONFIG"
    /// The prefix of the variables that set single keys: `PUSH_RELAY_HTTP_PORT=8081` sets `http.port`;
    /// `PUSH_RELAY_APPS` takes the whole `apps` array as JSON.
    public static let variablePrefix = "PUSH_RELAY_"

    /// Builds the effective configuration: defaults, then the JSON `file` (merged key by key), then the
    /// `PUSH_RELAY_*` variables of `environment`; then ``validate()``.
    /// - Throws: ``Invalid`` listing every problem found (unreadable file, malformed JSON, unknown variable,
    ///   a value of the wrong type, and all that ``validate()`` reports).
    public static func load(file: String?, environment: [String: String]) throws(Invalid) -> Configuration {
        try loadNoticingDeprecations(file: file, environment: environment).configuration
    }

    /// The largest configuration file read: far above any real one, and a bound on what a mistaken path
    /// (a device, a log) makes the relay read.
    static let maxFileBytes = 1 << 20

    /// `path`'s bytes, read through a file handle, so a pipe or device (`--config <(...)`, `/dev/stdin`) reads
    /// as a regular file does, to its end (a pipe is read until its writer closes it).
    /// - Throws: ``Invalid`` when `path` names nothing, a directory, or a file that cannot be opened, or there
    ///   are more than ``maxFileBytes``; Foundation's error when the file cannot be read.
    private static func readFile(_ path: String) throws -> Data {
        guard FileManager.default.fileExists(atPath: path) else { throw Invalid(["\(path): no such file"]) }
        if FileManager.default.isDirectory(atPath: path) {
            throw Invalid(["\(path): a directory, not a configuration file"])
        }
        let handle: FileHandle
        do { handle = try FileHandle(forReadingFrom: URL(fileURLWithPath: path)) } catch {
            throw Invalid(["\(path): cannot be opened (\(error.localizedDescription))"])
        }
        defer { try? handle.close() }
        let data = try handle.read(upToCount: maxFileBytes + 1) ?? Data()
        guard data.count <= maxFileBytes else { throw Invalid(["\(path): larger than \(maxFileBytes) bytes"]) }
        return data
    }

    /// ``load(file:environment:)``, also returning one notice per deprecated key the file or `PUSH_RELAY_APPS`
    /// used (`apps[0].mockEndpoint is deprecated: use apps[0].apns.endpoints.production and .sandbox`).
    /// - Parameter strictSyntax: checks the file's bytes, and a variable's JSON value (`PUSH_RELAY_APPS`), first
    ///   and returns why they are not strict JSON (with line and column), nil when they are; the command line
    ///   passes jansson's check (`RelayStrictJSON`), which RelayCore cannot import.
    /// - Throws: ``Invalid`` as ``load(file:environment:)``, or with the file and `strictSyntax`'s answer.
    public static func loadNoticingDeprecations(
        file: String?,
        environment: [String: String],
        strictSyntax: (Data) -> String? = { _ in nil }
    ) throws(Invalid) -> (configuration: Configuration, deprecations: [String]) {
        let found = try read(file: file, environment: environment, strictSyntax: strictSyntax)
        var problems = found.problems
        do { try found.configuration.validate() } catch { problems += error.problems }
        guard problems.isEmpty else { throw Invalid(problems) }
        return (found.configuration, found.deprecations)
    }

    /// The layers read and decoded, not validated, with the problems met on the way (unknown keys, unusable
    /// variables and fractions, which were left out): `config check` validates it and runs its checks of
    /// files and URLs beside, to list every problem at once.
    /// - Throws: ``Invalid`` when there is nothing to decode: the file cannot be read or is not strict JSON, or
    ///   a value has the wrong type.
    public static func read(
        file: String?,
        environment: [String: String],
        strictSyntax: (Data) -> String? = { _ in nil }
    ) throws(Invalid) -> (configuration: Configuration, deprecations: [String], problems: [String]) {
        var tree = Configuration().jsonTree()
        var problems: [String] = []
        if let file {
            do {
                let data = try readFile(file)
                if let problem = strictSyntax(data) { throw Invalid(["\(file): not strict JSON: \(problem)"]) }
                if let object = try JSONSerialization.jsonObject(with: data) as? [String: Any] {
                    tree = merged(tree, object, path: [], problems: &problems)
                } else {
                    problems.append("\(file): must hold a JSON object")
                }
            } catch let invalid as Invalid {
                throw invalid  // the rest would only repeat it: nothing of the file is read
            } catch {
                problems.append("\(file): cannot be read as JSON (\(error.localizedDescription))")
            }
        }
        for (name, value) in environment.sorted(by: { $0.key < $1.key })
        where name.hasPrefix(variablePrefix) && name != fileVariable {
            if let problem = apply(variable: name, value: value, to: &tree, strictSyntax: strictSyntax) {
                problems.append(problem)
            }
        }
        let defaults = Configuration().jsonTree()
        tree = wholeNumbers(tree, defaults: defaults, path: "", problems: &problems) as? [String: Any] ?? [:]
        // Unknown keys, unusable variables and fractions were left out of the tree: go on, so the rest is
        // checked too and every problem is listed at once.
        let configuration: Configuration
        let notices = DeprecationNotices()
        do {
            let data = try JSONSerialization.data(withJSONObject: tree)
            let decoder = JSONDecoder()
            decoder.userInfo[DeprecationNotices.userInfoKey] = notices
            configuration = try decoder.decode(Configuration.self, from: data)
        } catch let error as DecodingError {
            throw Invalid(problems + [error.configurationProblem])
        } catch {
            throw Invalid(problems + ["\(error)"])
        }
        return (configuration, notices.all, problems)
    }

    /// This configuration as a JSON object tree (dictionaries, arrays, numbers, strings).
    func jsonTree() -> [String: Any] {
        let data = try! JSONEncoder().encode(self)
        return (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] ?? [:]
    }

    /// `base` with `overlay` laid over it: objects merge key by key, anything else is replaced. A key the
    /// defaults do not have is a problem (a typo must not pass as a default).
    private static func merged(
        _ base: [String: Any],
        _ overlay: [String: Any],
        path: [String],
        problems: inout [String]
    )
        -> [String: Any]
    {
        var result = base
        for (key, value) in overlay.sorted(by: { $0.key < $1.key }) {
            let here = path + [key]
            guard let existing = base[key] else {
                problems.append("\(here.joined(separator: ".")): unknown key")
                continue
            }
            if let inner = value as? [String: Any], let existingObject = existing as? [String: Any] {
                result[key] = merged(existingObject, inner, path: here, problems: &problems)
            } else {
                result[key] = value
            }
        }
        return result
    }

    /// `node` with each number that is no whole number (`1.5`, `1e20`: every numeric setting is an integer)
    /// replaced by its value in `defaults` (left out where it has none), each named in `problems` by its
    /// key path (`apps[0].pushDelaySeconds: must be a whole number`); the decoder would report them with no
    /// key path.
    private static func wholeNumbers(_ node: Any, defaults: Any?, path: String, problems: inout [String]) -> Any? {
        switch node {
        case let object as [String: Any]:
            var kept: [String: Any] = [:]
            for (key, value) in object.sorted(by: { $0.key < $1.key }) {
                kept[key] = wholeNumbers(
                    value,
                    defaults: (defaults as? [String: Any])?[key],
                    path: path.isEmpty ? key : path + "." + key,
                    problems: &problems
                )
            }
            return kept
        case let array as [Any]:
            return array.enumerated().compactMap { index, value in
                wholeNumbers(value, defaults: nil, path: path + "[\(index)]", problems: &problems)
            }
        case is String, is Bool, is Int: return node
        case is NSNumber:
            problems.append("\(path): must be a whole number")
            return defaults
        default: return node
        }
    }

    /// Sets the key a `PUSH_RELAY_*` variable names; returns a problem when there is no such key or the
    /// value does not fit its type. A JSON value (a list, the apps) is checked by `strictSyntax` first, and a
    /// problem never shows it: it may hold secrets (an app's webhook secret). A flag's or number's value is
    /// shown.
    private static func apply(
        variable: String,
        value: String,
        to tree: inout [String: Any],
        strictSyntax: (Data) -> String?
    ) -> String? {
        let wanted = String(variable.dropFirst(variablePrefix.count))
        guard let path = keyPaths(in: tree).first(where: { variableName($0) == wanted }) else {
            return "\(variable): no such setting"
        }
        let current = Self.value(at: path, in: tree)
        let parsed: Any?
        switch current {
        case is Bool where ["true", "false"].contains(value): parsed = value == "true"
        // Every numeric setting is a whole number.
        case is NSNumber: parsed = Int(value)
        case is String: parsed = value
        // An optional setting that is unset (`null`), such as a file path: the text as it is.
        case is NSNull: parsed = value
        default:
            if let problem = strictSyntax(Data(value.utf8)) { return "\(variable): not strict JSON: \(problem)" }
            guard let json = try? JSONSerialization.jsonObject(with: Data(value.utf8), options: .fragmentsAllowed)
            else { return "\(variable): is not valid JSON for \(path.joined(separator: "."))" }
            // A list's variable takes the list alone, not a file's object around it (`{"apps": [...]}`).
            if current is [Any], !(json is [Any]) {
                return "\(variable): must be a JSON array for \(path.joined(separator: ".")) (the array alone)"
            }
            parsed = json
        }
        guard let parsed else {
            return "\(variable): '\(value)' is not a valid value for \(path.joined(separator: "."))"
        }
        set(parsed, at: path, in: &tree)
        return nil
    }

    private static func keyPaths(in tree: [String: Any], prefix: [String] = []) -> [[String]] {
        tree.flatMap { key, value -> [[String]] in
            let path = prefix + [key]
            if let inner = value as? [String: Any] { return [path] + keyPaths(in: inner, prefix: path) }
            return [path]
        }
    }

    /// `["delivery", "retry", "maxAttempts"]` -> `DELIVERY_RETRY_MAX_ATTEMPTS`.
    static func variableName(_ path: [String]) -> String {
        path.map { key in
            key.reduce(into: "") { name, character in
                if character.isUppercase { name += "_" }
                name += character.uppercased()
            }
        }.joined(separator: "_")
    }

    private static func value(at path: [String], in tree: [String: Any]) -> Any? {
        var node: Any? = tree
        for key in path { node = (node as? [String: Any])?[key] }
        return node
    }

    private static func set(_ value: Any, at path: [String], in tree: inout [String: Any]) {
        guard let first = path.first else { return }
        if path.count == 1 {
            tree[first] = value
        } else {
            var inner = tree[first] as? [String: Any] ?? [:]
            set(value, at: Array(path.dropFirst()), in: &inner)
            tree[first] = inner
        }
    }
}

/// `apps[0].topic`: a coding path as a configuration key path.
func configurationPath(_ keys: [any CodingKey]) -> String {
    keys.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined().trimmingPrefix(".").description
}

extension DecodingError {
    /// Whether the text is not JSON at all (or a value is not valid), rather than a field missing or mistyped.
    public var isDataCorrupted: Bool { if case .dataCorrupted = self { true } else { false } }

    /// `apps[0].topic: missing` style text for a configuration problem (or a file's field, by its path).
    public var configurationProblem: String {
        switch self {
        case .keyNotFound(let key, let context): return "\(configurationPath(context.codingPath + [key])): is required"
        case .typeMismatch(let type, let context):
            return "\(configurationPath(context.codingPath)): must be \(JSONValueKind.describe(type))"
        case .valueNotFound(_, let context), .dataCorrupted(let context):
            return "\(configurationPath(context.codingPath)): \(context.debugDescription)"
        @unknown default: return "\(self)"
        }
    }
}

/// Any key, to list what a JSON object holds.
struct AnyKey: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }
    init(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}

extension Decoder {
    /// Throws when the object being decoded holds a key `Keys` does not name, so a typo in a configuration
    /// file is reported instead of silently ignored.
    func rejectUnknownKeys<Keys: CodingKey & CaseIterable>(_: Keys.Type) throws {
        try rejectUnknownKeys(Keys.self, Keys.self)
    }

    /// ``rejectUnknownKeys(_:)`` that also takes the keys of `Aliases` (still read under an old name).
    func rejectUnknownKeys<Keys: CodingKey & CaseIterable, Aliases: CodingKey & CaseIterable>(
        _: Keys.Type,
        _: Aliases.Type
    ) throws {
        let known = Set(Keys.allCases.map(\.stringValue) + Aliases.allCases.map(\.stringValue))
        let present = try container(keyedBy: AnyKey.self).allKeys.map(\.stringValue)
        if let unknown = present.filter({ !known.contains($0) }).sorted().first {
            throw DecodingError.dataCorrupted(
                .init(codingPath: codingPath, debugDescription: "unknown key '\(unknown)'")
            )
        }
    }
}
