"""The local servers: `fc proxy` (forwards to a provider and records) and `fc serve` (answers
from traces). What both need is here: binding and running an ASGI app (launch.py); uvicorn and
starlette are imported only by these modules, so no other command pays for them."""
