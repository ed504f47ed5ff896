"""The boundary check of an agent's order, kept in the core (:mod:`pyanitsa.orders`); this name
stays for code written against it."""

from pyanitsa.orders import check_order, describe  # noqa: F401
