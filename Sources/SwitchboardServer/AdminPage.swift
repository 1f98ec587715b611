/// The admin console's page (`GET /admin`): one self-contained HTML document, served from
/// the binary. A placeholder until the console's page lands: it logs in and shows the raw
/// stream.
enum AdminPage {
  static let html = """
    <!doctype html>
    <html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">
    <title>Switchboard admin</title></head>
    <body><h1>Switchboard admin</h1><p>The console page is not built into this binary yet.</p></body></html>
    """
}
