import FlaskAPI

// The sample of docs/decisions.md, "One validation for every receiver of an action".

struct Transfer: FlaskAction {
    let amount: Int
}

/// Checks a transfer once, before any substance receives it: a transfer it stops reaches none.
final class TransfersMovePositiveAmounts: FluxMiddleware {
    func willMix(_ event: FluxEvent) -> FluxMiddlewareDecision {
        if let transfer = event.value as? Transfer, transfer.amount <= 0 {
            return .stop(reason: "a transfer must move a positive amount")
        }
        return .pass
    }
}

func validateTransfers(on bus: Flux = Flask.bus) {
    bus.use(TransfersMovePositiveAmounts())
}
