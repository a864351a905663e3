"""A small ``Rappture`` Python package for tool programs run off a hub.

Rappture's own Python bindings are not on PyPI, so a Rappture tool written in Python (``import
Rappture``) cannot run where Rappture is not installed. When nanohubmcp runs such a tool's
``<command>`` itself, it puts this directory last on the program's ``PYTHONPATH``, so ``import
Rappture`` finds :mod:`Rappture` here — unless a real Rappture comes earlier on the path.

It is a compatible subset, not Rappture: ``Rappture.library`` (``get``/``put``/``element``/
``children``/``remove``/``xml``), ``Rappture.PyXml`` (``rx['input.(Ef).current'].value``,
``rx['output.curve(f).component.xy'] = (x, y)``, ``rx.close()``), ``Rappture.result``,
``Rappture.Units.convert`` (through pint) and ``Rappture.Utils.progress``, plus
``Rappture.encoding``. It needs only the standard library, and pint for units.
"""
