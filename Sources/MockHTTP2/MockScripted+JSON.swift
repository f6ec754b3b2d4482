import Foundation

extension MockScripted where Self: Decodable {
    /// The bytes of a script file.
    /// - Throws: ``MockServerError`` `.script` when the file cannot be read.
    package static func scriptData(contentsOf url: URL) throws(MockServerError) -> Data {
        do { return try Data(contentsOf: url) } catch {
            throw MockServerError(.script, "cannot read script \(url.path): \(error.localizedDescription)")
        }
    }

    /// A script decoded from JSON bytes.
    /// - Throws: ``MockServerError`` `.script` when the bytes are not the script's JSON.
    package static func decoded(json data: Data) throws(MockServerError) -> Self {
        do { return try JSONDecoder().decode(Self.self, from: data) } catch {
            throw MockServerError(.script, "script is not valid: \(error)")
        }
    }
}
