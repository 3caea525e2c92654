/** The parts of a report tool's result that describe the scan rather than the answer. */
import type { ReportScan, ReportStop } from './usage-reports.js';

export interface ReportsDisabled {
  reports_enabled: false;
  reports_bucket: string;
  note: string;
}

export function reportsDisabled(scan: Extract<ReportScan, { enabled: false }>): ReportsDisabled {
  const why =
    scan.reason === 'key_restricted'
      ? `this key is restricted to other buckets, so it cannot read the usage reports in bucket ${scan.bucketName}`
      : `bucket ${scan.bucketName} does not exist; B2 writes daily usage reports there once usage reports are enabled for the account`;
  return { reports_enabled: false, reports_bucket: scan.bucketName, note: `No usage reports available: ${why}.` };
}

const STOP_WORDS: Record<ReportStop, string> = {
  max_pages: 'the 100-page listing limit',
  max_candidate_files: 'the candidate-file limit',
  max_selected_files: 'the selected-file limit',
  max_download_bytes: 'the download-size limit',
  max_rows: 'the row limit',
  time_budget: 'the time budget',
};

/** `truncated`, `stopped_by` and a note saying how far the scan got. */
export function scanCoverage(scan: Extract<ReportScan, { enabled: true }>): { truncated: boolean; stopped_by?: ReportStop; note?: string } {
  const { stats } = scan;
  if (!scan.stoppedBy) {
    return stats.files_read === 0
      ? { truncated: false, note: `No usage report files dated on or after ${scan.windowStart} in bucket ${scan.bucketName}.` }
      : { truncated: false };
  }
  const through = scan.lastDate ? `, covering ${scan.firstDate} to ${scan.lastDate}` : '';
  return {
    truncated: true,
    stopped_by: scan.stoppedBy,
    note: `Stopped by ${STOP_WORDS[scan.stoppedBy]} after reading ${stats.files_read} of ${stats.selected_files} report files${through}; later days are missing. Use fewer days for complete figures.`,
  };
}
