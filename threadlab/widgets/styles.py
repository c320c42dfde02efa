"""The one stylesheet the HTML widgets share (class names start with ``tl-``). Every text colour
in it reads at WCAG AA on every background the widgets use (``colors.TEXT_BACKGROUNDS``)."""

from __future__ import annotations

CSS = """<style>
.tl-root{font-family:system-ui,-apple-system,Segoe UI,sans-serif;font-size:13px;line-height:1.4;color:#1d2327;max-width:980px}
.tl-root pre{white-space:pre-wrap;word-break:break-word;margin:2px 0;font-size:12px;background:#f6f8fa;padding:4px 6px;border-radius:4px;max-height:240px;overflow:auto}
.tl-head{font-weight:600;margin:4px 0 8px}
.tl-msg{border-left:4px solid #999;padding:4px 8px;margin:6px 0;background:#fafbfc;border-radius:0 6px 6px 0}
.tl-who{font-weight:600;font-size:12px}
.tl-meta{color:#5d636f;font-size:11px;margin-left:6px;font-weight:400}
.tl-text{white-space:pre-wrap;word-break:break-word}
.tl-think{margin:4px 0 4px 12px;color:#555}
.tl-think summary{cursor:pointer;font-style:italic;font-size:12px}
.tl-tool{border:1px solid #d0d7de;border-left:4px solid #999;border-radius:6px;padding:4px 8px;margin:6px 0 6px 12px;background:#fff}
.tl-badge{display:inline-block;padding:0 6px;border-radius:8px;color:#fff;font-size:11px;margin-left:6px}
.tl-sys{color:#5d636f;font-size:11px;text-align:center;border-top:1px dashed #c9ced6;margin:8px 0;padding-top:2px}
.tl-harness{border-left:4px dashed #8a94a6;padding:2px 8px;margin:6px 0;background:#f4f5f7;color:#57606a;border-radius:0 6px 6px 0;font-size:12px}
.tl-harness>summary{cursor:pointer;list-style-position:inside}
.tl-harness .tl-text{color:#57606a}
.tl-harness .tl-preview{display:block;color:#5d636f;font-style:italic;overflow:hidden;text-overflow:ellipsis;white-space:nowrap}
.tl-harness[open]>summary .tl-preview{display:none}
.tl-stop{display:inline-block;width:8px;height:8px;background:currentColor;border-radius:1px;margin-right:5px}
.tl-interrupt{font-size:12px;font-weight:600;margin:6px 0;padding:1px 6px;border:1px solid #ddd6fe;background:#f5f3ff;border-radius:10px;display:inline-block}
.tl-media{display:inline-block;margin:4px 6px 0 0;font-size:12px}
.tl-media img{max-width:160px;max-height:120px;border:1px solid #ddd;border-radius:4px}
.tl-more>summary{cursor:pointer;color:#1d4ed8;font-size:12px}
.tl-note{color:#5d636f;font-style:italic;font-size:12px}
.tl-table{border-collapse:collapse;font-size:12px}
.tl-root .tl-table th,.tl-root .tl-table td{border-bottom:1px solid #e5e7eb;padding:2px 8px;text-align:left;vertical-align:top}
.tl-rows details{border-bottom:1px solid #e5e7eb}
.tl-rows summary{cursor:pointer;display:grid;grid-template-columns:4em 9em 9em 8em 5em minmax(0,1fr);gap:6px;padding:2px 4px}
.tl-rows summary>span{overflow:hidden;text-overflow:ellipsis;white-space:nowrap}
.tl-rows .tl-hdr{display:grid;grid-template-columns:4em 9em 9em 8em 5em minmax(0,1fr);gap:6px;padding:2px 4px 2px 20px;font-weight:600;border-bottom:2px solid #d0d7de}
.tl-row-error summary{background:#fdecea}
.tl-row-pending summary{background:#fff4d6}
.tl-row-orphan_return summary{background:#f3d9d6;font-weight:600}
.tl-cols{display:grid;grid-template-columns:9em minmax(0,1fr) minmax(0,1fr);gap:4px 10px;align-items:start}
.tl-cols>.tl-seq{color:#5d636f;font-size:11px;padding-top:8px;overflow-wrap:break-word}
.tl-cols>.tl-diff{background:#fff8e1}
.tl-empty{color:#5d636f;font-style:italic;font-size:11px;padding-top:8px}
.tl-edges summary,.tl-edges .tl-hdr{grid-template-columns:minmax(12em,2fr) 5em 7em 7em 5em 6em}
.tl-edges details>table{margin:4px 0 8px 20px}
.tl-steps summary,.tl-steps .tl-hdr{grid-template-columns:4em minmax(12em,2fr) 5em 8em 8em 5em}
.tl-steps details>table{margin:4px 0 8px 20px}
.tl-static-tab>summary{cursor:pointer;margin:6px 0}
</style>"""
