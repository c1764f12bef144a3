"""A team's refund resolver and executor in Flask, behind Countersign (docs/actions.md).

    COUNTERSIGN_URL=https://countersign.example PUBLIC_URL=https://payments.example python3 examples/refund_executor.py

The action's definition names PUBLIC_URL/actions/refund/resolve and PUBLIC_URL/actions/refund/execute.
"""

from __future__ import annotations

import os
from typing import Any, Dict, Optional

from flask import Flask
from werkzeug.middleware.dispatcher import DispatcherMiddleware

from countersign import ActionService, Refusal

ORDERS = {"ord_1842": {"tenant": "acme", "refundableMinor": 5000, "currency": "EUR"}}  # your system of record


def resolve_order(request: Dict[str, Any]) -> Optional[Dict[str, Any]]:
    order = ORDERS.get(request["args"].get("orderId", ""))
    if order is None or order["tenant"] != request["tenant"]:
        return None  # 404: missing, or another tenant's
    facts = {"refundableMinor": order["refundableMinor"], "currency": order["currency"]}
    return {"resourceKey": f"order:{request['args']['orderId']}", "facts": facts, "detail": "Order"}


def issue_refund(command: Dict[str, Any]) -> Dict[str, Any]:
    args = command["args"]  # verified: exactly what a person approved
    order = ORDERS.get(args["orderId"])
    if order is None or order["tenant"] != command["tenant"]:
        raise Refusal("order_not_found", "No such order.")
    if args["amountMinor"] > order["refundableMinor"]:
        raise Refusal("exceeds_refundable_balance", "The order has less left to refund.")
    order["refundableMinor"] -= args["amountMinor"]  # your payment provider, keyed by command["idempotencyKey"]
    return {"id": f"re_{command['jti']}", "orderId": args["orderId"], "amountMinor": args["amountMinor"]}


def create_app(countersign_url: str, public_url: str, jwks: Any = None) -> Flask:
    service = ActionService(
        jwks=jwks or f"{countersign_url}/.well-known/jwks.json",
        issuer=countersign_url,
        scope="payments",
        resolver_url=f"{public_url}/actions/refund/resolve",
        resolve=resolve_order,
        executor_url=f"{public_url}/actions/refund/execute",
        execute=issue_refund,
    )
    app = Flask(__name__)
    app.wsgi_app = DispatcherMiddleware(app.wsgi_app, {"/actions": service.wsgi})  # type: ignore[method-assign]
    return app


if __name__ == "__main__":
    create_app(os.environ["COUNTERSIGN_URL"], os.environ["PUBLIC_URL"]).run(port=int(os.environ.get("PORT", "8080")))
