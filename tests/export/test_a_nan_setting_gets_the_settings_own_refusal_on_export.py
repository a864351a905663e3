"""``%config NanohubMCP.port = float('nan')`` exported: the export said "the value must be a literal ... to be
exported" (it did not read ``float('nan')``), while ``float('inf')`` in the same place got the setting's own refusal
and the kernel refuses NaN in the setting's words (trial51 F10 i). A NaN (``float('nan')``, ``math.nan``,
``np.nan``) is now read as the kernel reads it and refused by the setting."""

from __future__ import annotations

import pytest
from traitlets import TraitError

from nanohubmcp.jupyter.config import NanohubMCP
from nanohubmcp.jupyter.export_settings import ExportSettings, SettingRefused


@pytest.mark.parametrize("value", ["float('nan')", "float('NaN')", "math.nan", "np.nan"])
@pytest.mark.parametrize("setting", ["port", "max_request_bytes", "tool_timeout"])
def test_nan_is_refused_in_the_settings_own_words(setting: str, value: str) -> None:
    with pytest.raises(TraitError) as kernel:
        setattr(NanohubMCP(), setting, float("nan"))
    with pytest.raises(SettingRefused) as exported:
        ExportSettings().apply(f"NanohubMCP.{setting} = {value}")
    assert str(exported.value) == str(kernel.value).splitlines()[0]
    assert "must be a literal" not in str(exported.value)
