import RelayCore

extension FCMDecision: NamedFate {
    public var fateName: String {
        switch self {
        case .delivered: "delivered"
        case .retire: "retire"
        case .retry: "retry"
        case .fail: "fail"
        case .credentialsRefused: "credentials_refused"
        case .unreachable: "unreachable"
        }
    }

    public var failure: DeliveryFailure? {
        guard case .fail(let why) = self else { return nil }
        return why
    }
}
