import Foundation
import RelayHTTP

/// The relay's OpenAPI 3.1 document (docs/openapi.yaml), as JSON, served at `GET /openapi.json`.
///
/// The JSON is generated from the YAML by `make openapi` (scripts/openapi-json.py, PyYAML and Python's
/// json module) into `Generated/OpenAPIJSON.swift`; `make test` fails when that file is stale. Compiled in,
/// so the binary serves it from any working directory with no resource files beside it.
public enum OpenAPIDocument {
    /// The document's JSON bytes (UTF-8).
    public static var data: Data { Data(jsonText.utf8) }

    /// `200` with the document and `content-type: application/json`.
    static var response: HTTPResponse {
        HTTPResponse(status: 200, headers: [("content-type", "application/json")], body: data)
    }
}
