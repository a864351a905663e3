"""The license an exported RO-Crate states, checked when given (``license=`` / ``--license``).

An SPDX license identifier is matched against the SPDX License List case-insensitively and
stated by its canonical spelling and page (``cc-by-4.0`` -> ``https://spdx.org/licenses/CC-BY-4.0``),
as SPDX matches identifiers; the list is the one ``packaging`` ships (``packaging.licenses``, no
network), imported only when a license is given. A license's URI is stated as given. Refused: an
identifier not on the list (a typo such as ``CC-BY-40`` would otherwise link a page that does not
exist), an expression of several (``MIT OR Apache-2.0`` has no page of its own) and a
``LicenseRef-`` identifier (a license of the crate's owner, which spdx.org does not hold: give its URI).

Source: SPDX Specification 2.3, Annex D (license expressions; identifiers matched case-insensitively)
and Annex B (``LicenseRef-``).
"""

from __future__ import annotations

from ...errors import ConfigurationError, NanohubMCPError

__all__ = ["SPDX_PAGE", "license_uri"]

SPDX_PAGE = "https://spdx.org/licenses/"
"""Where the SPDX License List has a page per identifier (``SPDX_PAGE + "CC-BY-4.0"``)."""

_GIVE = "give an SPDX identifier such as CC-BY-4.0 or CC0-1.0, or the license's URI"


def license_uri(license: str) -> str:
    """``license`` as the crate states it: an SPDX identifier becomes its SPDX page's URI, spelled as the
    list spells it (``"cc0-1.0"`` -> ``"https://spdx.org/licenses/CC0-1.0"``); a URI is kept as given.

    Raises:
        NanohubMCPError: an empty value, text that is not an identifier, an identifier not on the SPDX
            License List, an expression of several licenses, or a ``LicenseRef-`` identifier.
        ConfigurationError: ``packaging`` (>= 24.2, the ``provenance`` extra) is not installed.
    """
    text = license.strip()
    if "://" in text:
        return text
    if not text or not all(c.isalnum() or c in ".-+" for c in text):
        raise NanohubMCPError(f"license {license!r}: {_GIVE}")
    if text.lower().startswith("licenseref-"):
        raise NanohubMCPError(f"license {license!r}: a LicenseRef- identifier names a license of your own, "
                              "which spdx.org does not hold; give its URI")
    try:
        from packaging.licenses import InvalidLicenseExpression, canonicalize_license_expression
    except ImportError:
        raise ConfigurationError("checking an SPDX license identifier needs packaging>=24.2: "
                                 "pip install 'nanohub-mcp[provenance]'") from None
    try:  # one identifier (the check above let no space through: no AND / OR / WITH expression)
        canonical = canonicalize_license_expression(text)
    except InvalidLicenseExpression:
        raise NanohubMCPError(f"license {license!r} is not on the SPDX License List; {_GIVE}") from None
    return SPDX_PAGE + canonical
