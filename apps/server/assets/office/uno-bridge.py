# pdn's bridge to one warm LibreOffice instance (apps/server/src/engines/office-pdf/office-instance.ts).
#
# Started by the server as `python3 uno-bridge.py SOFFICE_BIN PROFILE_URL PIPE_NAME [SETPRIV]`: it starts
# soffice.bin headless on a profile of its own, accepting UNO connections on a named pipe, connects to
# it, then reads one JSON request a line on stdin and answers one JSON line on stdout each:
#
#   {"id": 1, "input": "/w/in.docx", "output": "/w/out.pdf", "filter": "MS Word 2007 XML",
#    "family": "writer", "memory": 536870912, "pages": "1-3", "landscape": false, "pdfa": 2,
#    "pdfua": false, "bookmarks": true}
#   -> {"id": 1, "ok": true[, "tainted": true]} or {"id": 1, "ok": false, "kind": "unreadable" | "pages" | "died" | "failed", "message": "..."}
#   -> {"idle": true}
#
# `tainted`: the document left something in the instance (fonts it carried), which must then end.
# The answer is written as soon as the PDF is: the document is closed after it, while the server takes
# the PDF away, and {"idle": true} says it is closed and the next request will be read. Closing took a
# tenth of a conversion at the median of the corpus (up to a sixth, for a PowerPoint 97 deck), time
# nobody needs to wait for; the next document is still only loaded once the last one is closed.
# The first line it prints is {"ready": true, "pid": <LibreOffice's>} once LibreOffice answers. The server times every request
# and kills the whole process group (this bridge and LibreOffice) past the plan's budget; the bridge
# exits when LibreOffice dies, or a document fails to close, since an instance that failed once is
# never used again.
import json
import os
import resource
import subprocess
import sys
import time

import uno
from com.sun.star.beans import PropertyValue
from com.sun.star.connection import NoConnectException
from com.sun.star.io import IOException

CONNECT_TIMEOUT_S = 60
# com.sun.star.document.MacroExecMode.NEVER_EXECUTE and UpdateDocMode.NO_UPDATE.
NEVER_EXECUTE = 0
NO_UPDATE = 0

EXPORT_FILTERS = {
    "writer": "writer_pdf_Export",
    "calc": "calc_pdf_Export",
    "impress": "impress_pdf_Export",
}
SERVICES = {
    "writer": "com.sun.star.text.TextDocument",
    "calc": "com.sun.star.sheet.SpreadsheetDocument",
    "impress": "com.sun.star.presentation.PresentationDocument",
}


def prop(name, value):
    p = PropertyValue()
    p.Name = name
    p.Value = value
    return p


def answer(message):
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def start_office(soffice, profile_url, pipe_name, setpriv):
    command = [
        soffice,
        "--headless",
        "--invisible",
        "--norestore",
        "--nologo",
        "--nodefault",
        "--nolockcheck",
        "--nofirststartwizard",
        "-env:UserInstallation=" + profile_url,
        "--accept=pipe,name=" + pipe_name + ";urp;",
    ]
    if setpriv:
        # The kernel ends LibreOffice the moment this bridge dies, whatever killed it.
        command = [setpriv, "--pdeathsig", "KILL", "--"] + command
    return subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=sys.stderr, stderr=sys.stderr)


def connect(office, pipe_name):
    local = uno.getComponentContext()
    resolver = local.ServiceManager.createInstanceWithContext("com.sun.star.bridge.UnoUrlResolver", local)
    deadline = time.monotonic() + CONNECT_TIMEOUT_S
    while True:
        if office.poll() is not None:
            raise RuntimeError("LibreOffice exited with code %d before accepting connections" % office.returncode)
        try:
            context = resolver.resolve("uno:pipe,name=%s;urp;StarOffice.ComponentContext" % pipe_name)
            return context.ServiceManager.createInstanceWithContext("com.sun.star.frame.Desktop", context)
        except NoConnectException:
            if time.monotonic() > deadline:
                raise RuntimeError("LibreOffice did not accept connections within %d s" % CONNECT_TIMEOUT_S)
            time.sleep(0.05)


def limit_memory(office, memory):
    # The plan's budget for this document: allocations past it fail inside LibreOffice. The hard limit
    # stays the one the instance was started under, the largest plan's.
    _, hard = resource.prlimit(office.pid, resource.RLIMIT_DATA)
    soft = memory if hard == resource.RLIM_INFINITY else min(memory, hard)
    resource.prlimit(office.pid, resource.RLIMIT_DATA, (soft, hard))


def turn_landscape(document):
    styles = document.StyleFamilies.getByName("PageStyles")
    for name in styles.ElementNames:
        style = styles.getByName(name)
        if style.IsLandscape:
            continue
        width, height = style.Width, style.Height
        style.IsLandscape = True
        style.Width, style.Height = max(width, height), min(width, height)


def filter_data(request):
    data = [
        prop("ExportBookmarks", request["bookmarks"]),
        prop("SelectPdfVersion", request["pdfa"]),
        prop("PDFUACompliance", request["pdfua"]),
        # Links in the document stay links in the PDF; nothing is followed or fetched to write them.
        prop("ExportNotes", False),
    ]
    if request["pdfua"]:
        data.append(prop("UseTaggedPDF", True))
    if request.get("pages"):
        data.append(prop("PageRange", request["pages"]))
    return uno.Any("[]com.sun.star.beans.PropertyValue", tuple(data))


def carried_fonts(profile_url):
    # LibreOffice copies the fonts a document carries here and registers them for the rest of its life:
    # an instance that read one is not used for another document.
    folder = os.path.join(uno.fileUrlToSystemPath(profile_url), "user", "temp", "embeddedfonts", "fromdocs")
    return os.path.isdir(folder) and len(os.listdir(folder)) > 0


def page_count(document, family):
    if family == "writer":
        return document.CurrentController.PageCount
    if family == "impress":
        return document.DrawPages.Count
    return None


def convert(desktop, office, request):
    # The reply, and the document, still open, that was exported: the caller closes it after answering.
    limit_memory(office, request["memory"])
    family = request["family"]
    load = (
        prop("Hidden", True),
        prop("FilterName", request["filter"]),
        prop("MacroExecutionMode", NEVER_EXECUTE),
        prop("UpdateDocMode", NO_UPDATE),
        prop("RepairPackage", False),
        prop("Silent", True),
    )
    try:
        document = desktop.loadComponentFromURL(uno.systemPathToFileUrl(request["input"]), "_blank", 0, load)
    except Exception as error:  # LibreOffice says IOException or IllegalArgumentException for unreadable files.
        kind = "died" if office.poll() is not None else "unreadable"
        return {"ok": False, "kind": kind, "message": str(getattr(error, "Message", error))}, None
    if document is None or not document.supportsService(SERVICES[family]):
        if document is not None:
            document.close(True)
        return {"ok": False, "kind": "unreadable", "message": "LibreOffice did not read it as a %s document" % family}, None
    try:
        if request["landscape"] and family != "impress":
            turn_landscape(document)
        store = (prop("FilterName", EXPORT_FILTERS[family]), prop("FilterData", filter_data(request)))
        try:
            document.storeToURL(uno.systemPathToFileUrl(request["output"]), store)
        except IOException:
            # The export writes nothing, and fails, when PageRange names no page the document has.
            if not request.get("pages"):
                raise
            pages = str(page_count(document, family) or "")
            document.close(True)
            return {"ok": False, "kind": "pages", "message": pages}, None
    except BaseException:
        document.close(True)
        raise
    return {"ok": True}, document


def main():
    soffice, profile_url, pipe_name = sys.argv[1:4]
    setpriv = sys.argv[4] if len(sys.argv) > 4 else ""
    office = start_office(soffice, profile_url, pipe_name, setpriv)
    desktop = connect(office, pipe_name)
    answer({"ready": True, "pid": office.pid})
    for line in sys.stdin:
        request = json.loads(line)
        document = None
        try:
            reply, document = convert(desktop, office, request)
            # The fonts a document carries are copied out as it loads: they are there before it closes.
            if carried_fonts(profile_url):
                reply["tainted"] = True
        except Exception as error:
            # LibreOffice gone under a document (out of its memory, or crashed on it) is the document's
            # doing; any other failure is the bridge's or LibreOffice's own.
            kind = "died" if office.poll() is not None else "failed"
            reply = {"ok": False, "kind": kind, "message": "%s: %s" % (type(error).__name__, getattr(error, "Message", error))}
        reply["id"] = request["id"]
        answer(reply)
        if document is not None:
            try:
                document.close(True)
            except Exception as error:
                sys.stderr.write("the document did not close: %s: %s\n" % (type(error).__name__, getattr(error, "Message", error)))
                break
        if office.poll() is not None:
            break
        answer({"idle": True})
    office.kill()


if __name__ == "__main__":
    main()
