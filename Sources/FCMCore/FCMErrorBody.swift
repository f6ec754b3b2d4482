/// The JSON body of an FCM error answer: a `google.rpc.Status` under `error`, whose `details` may hold an
/// `FcmError` (with ``FCMErrorCode``) and a `BadRequest` (naming the fields at fault).
///
/// Source: Firebase, "FCM error codes" (REST error codes for the HTTP v1 API). Shape:
/// `{"error":{"code":404,"message":"...","status":"NOT_FOUND","details":[{"@type":
/// "type.googleapis.com/google.firebase.fcm.v1.FcmError","errorCode":"UNREGISTERED"}]}}`.
public struct FCMErrorBody: Codable, Sendable, Equatable {
    public struct Status: Codable, Sendable, Equatable {
        /// The HTTP status again.
        public var code: Int
        public var message: String
        /// The `google.rpc` status name, e.g. `NOT_FOUND`, `UNAUTHENTICATED`.
        public var status: String
        public var details: [Detail]?

        public init(code: Int, message: String, status: String, details: [Detail]? = nil) {
            self.code = code
            self.message = message
            self.status = status
            self.details = details
        }
    }

    /// One entry of `details`: an `FcmError` (``errorCode``) or a `BadRequest` (``fieldViolations``).
    public struct Detail: Codable, Sendable, Equatable {
        public var type: String
        public var errorCode: String?
        public var fieldViolations: [FieldViolation]?

        private enum CodingKeys: String, CodingKey {
            case type = "@type", errorCode, fieldViolations
        }

        public init(type: String, errorCode: String? = nil, fieldViolations: [FieldViolation]? = nil) {
            self.type = type
            self.errorCode = errorCode
            self.fieldViolations = fieldViolations
        }
    }

    /// A field at fault, e.g. `message.token`, `message.data[0].value`.
    public struct FieldViolation: Codable, Sendable, Equatable {
        public var field: String
        public var description: String?

        public init(field: String, description: String? = nil) {
            self.field = field
            self.description = description
        }
    }

    public var error: Status

    public init(error: Status) { self.error = error }

    /// The `errorCode` of the `FcmError` detail, if any.
    public var errorCode: String? {
        error.details?.first { $0.type == FCMLimits.fcmErrorType }?.errorCode
    }

    /// The fields the `BadRequest` details name, in order.
    public var violatedFields: [String] {
        (error.details ?? []).filter { $0.type == FCMLimits.badRequestType }.flatMap {
            ($0.fieldViolations ?? []).map(\.field)
        }
    }
}
