import { reportFailure } from "./command-table";
import { main } from "./main";

main(process.argv).catch(reportFailure);
