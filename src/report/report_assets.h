// The fixed parts of the HTML report page (report_assets.cpp): style sheet, error recorder,
// timeline markup and the page script. Kept apart from the writer so that the C++ stays short.
#pragma once

namespace perfmarker::report {

extern const char* const kReportCss;
// Runs first, in <head>: records any script error on the page (#errors, data-errors on <html>)
// so that a test, or a reader, sees it.
extern const char* const kReportErrorScript;
// The toolbar, canvas, tooltip and detail panel of the timeline section.
extern const char* const kReportTimelineMarkup;
// Draws the timeline from #timeline-data, makes the tables sortable, then sets
// document.body.dataset.ready = "1" and data-items to the number of slices loaded.
extern const char* const kReportScript;

}  // namespace perfmarker::report
