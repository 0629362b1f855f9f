"""The pydantic form of a tool (the course's fourth text): one model describes the arguments.

`fc tools --tools docs/course/order_tools.py` shows the JSON Schema pydantic makes of it, and
`fc run ... --tools docs/course/order_tools.py` validates the model's arguments with it before
the function runs.
"""

from pydantic import BaseModel, Field


class OrderQuery(BaseModel):
    """按订单号查询订单状态与物流信息。当用户询问订单进度时使用。"""

    order_id: str = Field(description="订单号，形如 ORD-2024-000123", pattern=r"^ORD-\d{4}-\d{6}$")
    include_logistics: bool = Field(default=False, description="是否附带物流轨迹")


def get_order(query: OrderQuery) -> dict[str, str]:
    if query.order_id != "ORD-2024-000123":
        # A failure is a result the model reads, not an exception that ends the loop.
        return {"error": f"没有订单 {query.order_id}"}
    return {"status": "运输中", "logistics": "已到上海转运中心，预计明天送达"}
